/**
 * A moment picked as a date and a time (the browser's own pickers), with the chosen moment spelled out
 * below in Thai with its Buddhist-era year ("25 พฤศจิกายน 2569 14:05"): the native date input shows the
 * Christian year, so the line says which moment is meant.
 */
import { useId, type ReactNode } from 'react';
import { Button } from '../../components/ui/Button.tsx';
import { formatLongDateTime } from '../../lib/dates.ts';
import { isUnset, momentDate, NO_MOMENT, type LocalMoment } from './contest-form.ts';

/** The two native inputs a moment is picked with. */
const PARTS = [
  { key: 'date', type: 'date', caption: 'วันที่' },
  { key: 'time', type: 'time', caption: 'เวลา' },
] as const;

export function DateTimeField({
  label,
  value,
  onChange,
  error,
  hint,
  disabled = false,
  optional = false,
}: {
  label: string;
  value: LocalMoment;
  onChange(value: LocalMoment): void;
  error?: string | undefined;
  hint?: ReactNode;
  disabled?: boolean;
  /** Shows a button that clears the moment ("not set" is a valid value). */
  optional?: boolean;
}) {
  const id = useId();
  const instant = momentDate(value);
  const preview = instant ? formatLongDateTime(instant) : isUnset(value) ? 'ยังไม่ได้กำหนด' : 'ยังเลือกไม่ครบ';
  const described = [`${id}-preview`, error ? `${id}-error` : hint ? `${id}-hint` : null].filter(Boolean).join(' ');
  return (
    <fieldset className={`field admin-datetime${error ? ' field-invalid' : ''}`} aria-describedby={described}>
      <legend className="field-label">{label}</legend>
      <div className="admin-datetime-inputs">
        {PARTS.map(({ key, type, caption }) => (
          <label key={key} className="admin-datetime-part">
            <span className="admin-datetime-caption">
              <span className="sr-only">{label} </span>
              {caption}
            </span>
            <input
              type={type}
              className="input"
              value={value[key]}
              disabled={disabled}
              aria-invalid={error ? true : undefined}
              aria-describedby={described}
              onChange={(event) => onChange({ ...value, [key]: event.target.value })}
            />
          </label>
        ))}
        {optional && !isUnset(value) ? (
          <Button size="sm" variant="ghost" className="admin-datetime-clear" disabled={disabled} onClick={() => onChange(NO_MOMENT)}>
            ไม่กำหนด<span className="sr-only"> {label}</span>
          </Button>
        ) : null}
      </div>
      <p id={`${id}-preview`} className={`admin-datetime-preview${instant ? '' : ' muted'}`} aria-live="polite">
        {preview}
      </p>
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
    </fieldset>
  );
}
