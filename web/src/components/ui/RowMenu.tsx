/**
 * The "…" menu of a table row. It opens in the top layer (the popover API, invoked by its button), so the
 * table's horizontal scroll box does not clip it; outside clicks and Escape close it and focus goes back
 * to the button, arrow keys move, and it closes when the page scrolls (the rows under it move).
 */
import { useEffect, useId, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { MoreIcon } from './icons.tsx';

const GAP = 4;

export function RowMenu({ label, children }: { label: string; children: ReactNode }) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const list = useRef<HTMLDivElement>(null);
  const id = useId();

  const place = () => {
    const menu = list.current;
    const anchor = button.current;
    if (!menu || !anchor) return;
    const rect = anchor.getBoundingClientRect();
    menu.style.right = `${Math.max(GAP, document.documentElement.clientWidth - rect.right)}px`;
    const height = menu.offsetHeight;
    const below = height === 0 || rect.bottom + GAP + height <= window.innerHeight;
    menu.style.top = `${below ? rect.bottom + GAP : Math.max(GAP, rect.top - GAP - height)}px`;
  };

  // Shown (the toggle event comes after): now it can be measured, flipped above if needed, and focused.
  const shown = () => {
    place();
    list.current?.querySelector<HTMLElement>('[role="menuitem"]:not(:disabled)')?.focus();
  };

  useEffect(() => {
    if (!open) return;
    const close = () => list.current?.hidePopover();
    window.addEventListener('scroll', close, { passive: true });
    window.addEventListener('resize', close);
    return () => {
      window.removeEventListener('scroll', close);
      window.removeEventListener('resize', close);
    };
  }, [open]);

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Tab') {
      list.current?.hidePopover();
      return;
    }
    if (!['ArrowDown', 'ArrowUp', 'Home', 'End'].includes(event.key)) return;
    event.preventDefault();
    const items = [...(list.current?.querySelectorAll<HTMLElement>('[role="menuitem"]:not(:disabled)') ?? [])];
    if (!items.length) return;
    const at = items.indexOf(document.activeElement as HTMLElement);
    const next = event.key === 'Home' ? 0 : event.key === 'End' ? items.length - 1 : (at + (event.key === 'ArrowDown' ? 1 : -1) + items.length) % items.length;
    items[next]?.focus();
  };

  return (
    <>
      <button
        ref={button}
        type="button"
        className="btn btn-ghost btn-sm btn-icon"
        popoverTarget={id}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-label={label}
        title={label}
      >
        <MoreIcon />
      </button>
      <div
        ref={list}
        id={id}
        role="menu"
        aria-label={label}
        popover="auto"
        className="menu-list row-menu"
        onKeyDown={onKeyDown}
        onClick={(event) => {
          if ((event.target as HTMLElement).closest('[role="menuitem"]')) list.current?.hidePopover();
        }}
        onBeforeToggle={(event) => {
          if (event.newState !== 'open') return;
          place();
          setOpen(true);
        }}
        onToggle={(event) => {
          // The items go only once it is hidden, so the browser can first give focus back to the button.
          if (event.newState === 'open') shown();
          else setOpen(false);
        }}
      >
        {open ? children : null}
      </div>
    </>
  );
}
