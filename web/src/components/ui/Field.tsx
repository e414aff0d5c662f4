/** Labelled form controls with the error shown at the field (and tied to it for screen readers). */
import { useId, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes, type TextareaHTMLAttributes } from 'react';

interface FieldShell {
  label: ReactNode;
  error?: string | undefined;
  hint?: ReactNode;
}

function Shell({ id, label, error, hint, children }: FieldShell & { id: string; children: ReactNode }) {
  return (
    <div className={`field${error ? ' field-invalid' : ''}`}>
      <label htmlFor={id} className="field-label">
        {label}
      </label>
      {children}
      {hint && !error ? (
        <p id={`${id}-hint`} className="field-hint">
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={`${id}-error`} className="field-error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}

const describedBy = (id: string, error?: string, hint?: ReactNode) => (error ? `${id}-error` : hint ? `${id}-hint` : undefined);

export function TextField({ label, error, hint, id: given, className, ...rest }: FieldShell & InputHTMLAttributes<HTMLInputElement>) {
  const generated = useId();
  const id = given ?? generated;
  return (
    <Shell id={id} label={label} error={error} hint={hint}>
      <input id={id} className={['input', className].filter(Boolean).join(' ')} aria-invalid={error ? true : undefined} aria-describedby={describedBy(id, error, hint)} {...rest} />
    </Shell>
  );
}

export function TextAreaField({ label, error, hint, id: given, className, ...rest }: FieldShell & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  const generated = useId();
  const id = given ?? generated;
  return (
    <Shell id={id} label={label} error={error} hint={hint}>
      <textarea id={id} className={['input textarea', className].filter(Boolean).join(' ')} aria-invalid={error ? true : undefined} aria-describedby={describedBy(id, error, hint)} {...rest} />
    </Shell>
  );
}

export function SelectField({ label, error, hint, id: given, className, children, ...rest }: FieldShell & SelectHTMLAttributes<HTMLSelectElement>) {
  const generated = useId();
  const id = given ?? generated;
  return (
    <Shell id={id} label={label} error={error} hint={hint}>
      <select id={id} className={['input select', className].filter(Boolean).join(' ')} aria-invalid={error ? true : undefined} aria-describedby={describedBy(id, error, hint)} {...rest}>
        {children}
      </select>
    </Shell>
  );
}
