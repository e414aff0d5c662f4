/**
 * A modal on the native <dialog>: the browser traps focus, Escape closes it and focus returns to the opener.
 * Closed dialogs render nothing, so their queries do not run.
 */
import { useEffect, useId, useRef, type ReactNode } from 'react';

export interface DialogProps {
  open: boolean;
  onClose(): void;
  title: ReactNode;
  children: ReactNode;
  footer?: ReactNode;
  size?: 'sm' | 'md' | 'lg' | 'xl';
  /** Extra header content (links, toggles) beside the title. */
  actions?: ReactNode;
}

export function Dialog({ open, onClose, title, children, footer, size = 'md', actions }: DialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const opener = useRef<Element | null>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      opener.current = document.activeElement;
      dialog.showModal();
      // React runs `autoFocus` before the dialog is open (nothing in it can take focus yet): mark the element with data-autofocus instead.
      dialog.querySelector<HTMLElement>('[data-autofocus]')?.focus();
    }
    if (!open && dialog.open) dialog.close();
  }, [open]);
  // A closed dialog is removed, not closed, so the browser cannot give focus back: return it to the opener.
  useEffect(() => {
    if (!open) return;
    return () => {
      const element = opener.current;
      if (element instanceof HTMLElement && element.isConnected) element.focus();
    };
  }, [open]);
  if (!open) return null;
  return (
    <dialog
      ref={ref}
      className={`dialog dialog-${size}`}
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        // React passes `cancel` up its tree: a dialog opened from another must not close that one too.
        event.stopPropagation();
        onClose();
      }}
      onClick={(event) => {
        // A click on the backdrop (the dialog element itself, outside its panel) closes it.
        if (event.target === ref.current) onClose();
      }}
    >
      <div className="dialog-panel">
        <header className="dialog-header">
          <h2 id={titleId} className="dialog-title">
            {title}
          </h2>
          {actions}
          <button type="button" className="btn btn-ghost btn-icon btn-sm" aria-label="ปิด" title="ปิด" onClick={onClose}>
            ✕
          </button>
        </header>
        <div className="dialog-body">{children}</div>
        {footer ? <footer className="dialog-footer">{footer}</footer> : null}
      </div>
    </dialog>
  );
}
