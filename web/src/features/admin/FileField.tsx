/**
 * A labelled file input whose error can be a list (the server's test-data problems, verbatim), shown at the
 * field and tied to it for screen readers. A file can also be dropped on it. The chosen file lives in the
 * caller's state (so a failed send keeps it), not in the input.
 */
import { useId, useRef, useState, type ReactNode } from 'react';
import { UploadIcon } from '../../components/ui/icons.tsx';

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

export function FileField({
  label,
  name,
  accept,
  hint,
  error,
  problems,
  file,
  onFile,
  disabled,
}: {
  label: ReactNode;
  name: string;
  accept?: string;
  hint?: ReactNode;
  error?: string | undefined;
  /** Listed under `error` (e.g. every problem of a test-data zip). */
  problems?: readonly string[] | undefined;
  file: File | null;
  onFile(file: File | null): void;
  disabled?: boolean;
}) {
  const id = useId();
  const [dragging, setDragging] = useState(false);
  const invalid = Boolean(error || problems?.length);
  const describedBy = [`${id}-name`, hint ? `${id}-hint` : '', invalid ? `${id}-error` : ''].filter(Boolean).join(' ');
  const input = useRef<HTMLInputElement>(null);
  return (
    <div className={`field${invalid ? ' field-invalid' : ''}`}>
      <label htmlFor={id} className="field-label">
        {label}
      </label>
      <div
        className="admin-file"
        data-active={dragging}
        onDragOver={(event) => {
          event.preventDefault();
          if (!disabled) setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={(event) => {
          event.preventDefault();
          setDragging(false);
          const dropped = event.dataTransfer.files[0];
          if (dropped && !disabled) onFile(dropped);
        }}
      >
        {/* The visible control is a button (labelled by the field's label); the native input only opens the picker. */}
        <button id={id} type="button" className="btn btn-outline btn-sm" disabled={disabled} aria-describedby={describedBy} onClick={() => input.current?.click()}>
          <UploadIcon width={16} height={16} />
          เลือกไฟล์
        </button>
        <span id={`${id}-name`} className="admin-file-name">
          {file ? `${file.name} (${formatBytes(file.size)})` : 'ยังไม่ได้เลือกไฟล์'}
        </span>
        {file && !disabled ? (
          <button type="button" className="btn btn-ghost btn-sm" aria-label={`ล้างไฟล์ ${file.name}`} onClick={() => onFile(null)}>
            ล้าง
          </button>
        ) : null}
        <input
          ref={input}
          name={name}
          type="file"
          hidden
          tabIndex={-1}
          accept={accept}
          onChange={(event) => {
            onFile(event.target.files?.[0] ?? null);
            // Choosing the same file again must fire change again.
            event.target.value = '';
          }}
        />
      </div>
      {hint ? (
        <p id={`${id}-hint`} className="field-hint">
          {hint}
        </p>
      ) : null}
      {invalid ? (
        <div id={`${id}-error`} className="field-error" role="alert">
          {error ? <p className="admin-error-line">{error}</p> : null}
          {problems?.length ? (
            <ul className="admin-problems">
              {problems.map((problem, index) => (
                <li key={index}>{problem}</li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
