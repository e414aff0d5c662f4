import type { ReactNode } from 'react';
import { errorMessage } from '../../lib/api.ts';
import { Button } from './Button.tsx';

/** What a list shows when it has nothing, or when loading it failed. */
export function Empty({ children, tone = 'muted' }: { children: ReactNode; tone?: 'muted' | 'error' }) {
  return <div className={`empty empty-${tone}`} role={tone === 'error' ? 'alert' : undefined}>{children}</div>;
}

/** A read that failed: why (the server's message, else `fallback`) and a retry button. */
export function LoadFailed({ error, fallback, onRetry }: { error: unknown; fallback: string; onRetry(): void }) {
  return (
    <Empty tone="error">
      <p>{errorMessage(error, fallback)}</p>
      <Button onClick={onRetry}>ลองใหม่</Button>
    </Empty>
  );
}
