/** Toasts at the bottom centre, announced to screen readers. `toast.promise` follows a request from start to end. */
import { useEffect, useRef, useSyncExternalStore } from 'react';

export type ToastKind = 'loading' | 'success' | 'error' | 'info';
export interface ToastItem {
  readonly id: number;
  readonly kind: ToastKind;
  readonly message: string;
}

let items: ToastItem[] = [];
let nextId = 1;
const listeners = new Set<() => void>();
const emit = () => listeners.forEach((listener) => listener());
const timers = new Map<number, number>();

function dismiss(id: number): void {
  items = items.filter((item) => item.id !== id);
  window.clearTimeout(timers.get(id));
  timers.delete(id);
  emit();
}

function show(kind: ToastKind, message: string, id = nextId++): number {
  const exists = items.some((item) => item.id === id);
  items = exists ? items.map((item) => (item.id === id ? { id, kind, message } : item)) : [...items.slice(-3), { id, kind, message }];
  window.clearTimeout(timers.get(id));
  if (kind !== 'loading') timers.set(id, window.setTimeout(() => dismiss(id), kind === 'error' ? 6_000 : 3_000));
  emit();
  return id;
}

export const toast = {
  success: (message: string) => show('success', message),
  error: (message: string) => show('error', message),
  info: (message: string) => show('info', message),
  loading: (message: string) => show('loading', message),
  dismiss,
  /** A loading toast that becomes the success or the error message; the promise's result passes through. */
  async promise<T>(promise: Promise<T>, messages: { loading: string; success: string | ((value: T) => string); error: string | ((error: unknown) => string) }): Promise<T> {
    const id = show('loading', messages.loading);
    try {
      const value = await promise;
      show('success', typeof messages.success === 'function' ? messages.success(value) : messages.success, id);
      return value;
    } catch (error) {
      show('error', typeof messages.error === 'function' ? messages.error(error) : messages.error, id);
      throw error;
    }
  },
};

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function Toaster() {
  const current = useSyncExternalStore(subscribe, () => items);
  const ref = useRef<HTMLDivElement>(null);
  // A modal <dialog> sits in the browser's top layer, above any z-index: the toaster is a popover, and
  // re-showing it puts it back on top of a dialog opened since.
  useEffect(() => {
    const element = ref.current;
    if (!element?.showPopover) return;
    if (element.matches(':popover-open')) element.hidePopover();
    if (current.length > 0) element.showPopover();
  }, [current]);
  return (
    <div ref={ref} popover="manual" className="toaster" role="status" aria-live="polite">
      {current.map((item) => (
        <div key={item.id} className={`toast toast-${item.kind}`} data-kind={item.kind}>
          {item.kind === 'loading' ? <span className="spinner spinner-sm" aria-hidden /> : null}
          <span>{item.message}</span>
          {item.kind !== 'loading' ? (
            <button type="button" className="toast-close" aria-label="ปิด" onClick={() => dismiss(item.id)}>
              ×
            </button>
          ) : null}
        </div>
      ))}
    </div>
  );
}
