/** Tabs with arrow-key movement (WAI-ARIA tabs pattern); the caller keeps the selected one (e.g. in the URL). */
import { useRef, type KeyboardEvent } from 'react';

export interface TabItem<T extends string> {
  readonly id: T;
  readonly label: string;
}

export function Tabs<T extends string>({ items, selected, onSelect, label }: { items: ReadonlyArray<TabItem<T>>; selected: T; onSelect(id: T): void; label: string }) {
  const refs = useRef<Array<HTMLButtonElement | null>>([]);
  const onKeyDown = (event: KeyboardEvent, index: number) => {
    const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    if (!step) return;
    event.preventDefault();
    const next = (index + step + items.length) % items.length;
    refs.current[next]?.focus();
    onSelect(items[next]!.id);
  };
  return (
    <div role="tablist" aria-label={label} className="tabs">
      {items.map((item, index) => (
        <button
          key={item.id}
          ref={(element) => {
            refs.current[index] = element;
          }}
          type="button"
          role="tab"
          id={`tab-${item.id}`}
          aria-selected={item.id === selected}
          aria-controls={`tabpanel-${item.id}`}
          tabIndex={item.id === selected ? 0 : -1}
          className="tab"
          onClick={() => onSelect(item.id)}
          onKeyDown={(event) => onKeyDown(event, index)}
        >
          {item.label}
        </button>
      ))}
    </div>
  );
}

export function TabPanel({ id, children }: { id: string; children: React.ReactNode }) {
  return (
    <div role="tabpanel" id={`tabpanel-${id}`} aria-labelledby={`tab-${id}`} className="tabpanel">
      {children}
    </div>
  );
}
