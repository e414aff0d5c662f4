/** "Are you sure?" before a rejudge or a delete: the confirm button waits for the request, and the dialog closes when it succeeds. */
import { useState, type ReactNode } from 'react';
import { Button } from '../../components/ui/Button.tsx';
import { Dialog } from '../../components/ui/Dialog.tsx';

export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  danger = false,
  onConfirm,
  onClose,
}: {
  title: string;
  children: ReactNode;
  confirmLabel: string;
  danger?: boolean;
  /** The request; the dialog stays open (for another try) when it fails. */
  onConfirm(): Promise<unknown>;
  onClose(): void;
}) {
  const [pending, setPending] = useState(false);
  const confirm = async () => {
    setPending(true);
    try {
      await onConfirm();
      onClose();
    } catch {
      // The toast said why.
      setPending(false);
    }
  };
  return (
    <Dialog
      open
      size="sm"
      title={title}
      onClose={() => {
        if (!pending) onClose();
      }}
      footer={
        <>
          <Button variant="ghost" onClick={onClose} disabled={pending} data-autofocus={danger || undefined}>
            ยกเลิก
          </Button>
          <Button variant={danger ? 'danger' : 'primary'} loading={pending} onClick={() => void confirm()} data-autofocus={!danger || undefined}>
            {confirmLabel}
          </Button>
        </>
      }
    >
      {children}
    </Dialog>
  );
}
