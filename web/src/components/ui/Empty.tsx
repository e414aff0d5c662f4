import type { ReactNode } from 'react';

/** What a list shows when it has nothing, or when loading it failed. */
export function Empty({ children, tone = 'muted' }: { children: ReactNode; tone?: 'muted' | 'error' }) {
  return <div className={`empty empty-${tone}`} role={tone === 'error' ? 'alert' : undefined}>{children}</div>;
}
