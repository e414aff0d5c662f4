/** A dropdown menu button: opens on click, closes on Escape, outside click or choosing an item; arrow keys move. */
import { useEffect, useId, useRef, useState, type ReactNode } from 'react';

export function Menu({ label, button, children, align = 'end' }: { label: string; button: ReactNode; children: ReactNode; align?: 'start' | 'end' }) {
  const [open, setOpen] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  const id = useId();
  useEffect(() => {
    if (!open) return;
    const onPointer = (event: PointerEvent) => {
      if (!root.current?.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener('pointerdown', onPointer);
    root.current?.querySelector<HTMLElement>('[role="menuitem"]')?.focus();
    return () => document.removeEventListener('pointerdown', onPointer);
  }, [open]);
  const onKeyDown = (event: React.KeyboardEvent) => {
    if (event.key === 'Escape') {
      setOpen(false);
      root.current?.querySelector<HTMLElement>('button[aria-haspopup]')?.focus();
      return;
    }
    if (event.key !== 'ArrowDown' && event.key !== 'ArrowUp') return;
    event.preventDefault();
    const items = [...(root.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])];
    const at = items.indexOf(document.activeElement as HTMLElement);
    items[(at + (event.key === 'ArrowDown' ? 1 : -1) + items.length) % items.length]?.focus();
  };
  return (
    <div className="menu" ref={root} onKeyDown={onKeyDown}>
      <button type="button" className="btn btn-ghost btn-md menu-button" aria-haspopup="menu" aria-expanded={open} aria-controls={id} aria-label={label} title={label} onClick={() => setOpen((v) => !v)}>
        {button}
      </button>
      {open ? (
        <div role="menu" id={id} className={`menu-list menu-${align}`} onClick={() => setOpen(false)}>
          {children}
        </div>
      ) : null}
    </div>
  );
}

export function MenuItem({ children, onSelect, danger, disabled }: { children: ReactNode; onSelect(): void; danger?: boolean; disabled?: boolean }) {
  return (
    <button type="button" role="menuitem" className={`menu-item${danger ? ' menu-item-danger' : ''}`} onClick={onSelect} disabled={disabled}>
      {children}
    </button>
  );
}
