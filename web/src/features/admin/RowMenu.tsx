/**
 * The "…" menu of a table row. Unlike components/ui/Menu its list is fixed to the viewport, so the table's
 * horizontal scroll box does not clip it; it opens upwards near the bottom of the screen and closes on
 * Escape, an outside click, scrolling or choosing an item (focus goes back to the button, so a dialog
 * opened from an item returns focus there too). Arrow keys move between items.
 */
import { useEffect, useId, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { MoreIcon } from '../../components/ui/icons.tsx';

interface Position {
  readonly right: number;
  readonly top?: number;
  readonly bottom?: number;
}

const ESTIMATED_HEIGHT = 200;

export function RowMenu({ label, children }: { label: string; children: ReactNode }) {
  const [position, setPosition] = useState<Position | null>(null);
  const button = useRef<HTMLButtonElement>(null);
  const list = useRef<HTMLDivElement>(null);
  const id = useId();

  const close = (refocus: boolean) => {
    setPosition(null);
    if (refocus) button.current?.focus();
  };

  const toggle = () => {
    if (position) return close(false);
    const rect = button.current?.getBoundingClientRect();
    if (!rect) return;
    const right = Math.max(8, window.innerWidth - rect.right);
    const below = window.innerHeight - rect.bottom;
    setPosition(below < ESTIMATED_HEIGHT && rect.top > below ? { right, bottom: window.innerHeight - rect.top + 4 } : { right, top: rect.bottom + 4 });
  };

  useEffect(() => {
    if (!position) return;
    list.current?.querySelector<HTMLElement>('[role="menuitem"]:not(:disabled)')?.focus();
    const onPointer = (event: PointerEvent) => {
      const target = event.target as Node;
      if (!list.current?.contains(target) && !button.current?.contains(target)) setPosition(null);
    };
    const onMove = () => setPosition(null);
    document.addEventListener('pointerdown', onPointer);
    window.addEventListener('scroll', onMove, true);
    window.addEventListener('resize', onMove);
    return () => {
      document.removeEventListener('pointerdown', onPointer);
      window.removeEventListener('scroll', onMove, true);
      window.removeEventListener('resize', onMove);
    };
  }, [position]);

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      close(true);
      return;
    }
    if (event.key === 'Tab') {
      close(false);
      return;
    }
    const step = event.key === 'ArrowDown' ? 1 : event.key === 'ArrowUp' ? -1 : 0;
    if (!step && event.key !== 'Home' && event.key !== 'End') return;
    event.preventDefault();
    const items = [...(list.current?.querySelectorAll<HTMLElement>('[role="menuitem"]:not(:disabled)') ?? [])];
    if (!items.length) return;
    const at = items.indexOf(document.activeElement as HTMLElement);
    const next = event.key === 'Home' ? 0 : event.key === 'End' ? items.length - 1 : (at + step + items.length) % items.length;
    items[next]?.focus();
  };

  return (
    <div className="menu">
      <button
        ref={button}
        type="button"
        className="btn btn-ghost btn-sm btn-icon"
        aria-haspopup="menu"
        aria-expanded={position !== null}
        aria-controls={position ? id : undefined}
        aria-label={label}
        title={label}
        onClick={toggle}
      >
        <MoreIcon />
      </button>
      {position ? (
        <div
          ref={list}
          role="menu"
          id={id}
          aria-label={label}
          className="menu-list admin-row-menu"
          style={{ right: position.right, top: position.top, bottom: position.bottom }}
          onKeyDown={onKeyDown}
          // An item was chosen: focus the button first, so a dialog the item opens gives focus back to it.
          onClick={() => close(true)}
        >
          {children}
        </div>
      ) : null}
    </div>
  );
}
