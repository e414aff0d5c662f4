import type { ReactNode } from 'react';

export type Tone = 'green' | 'yellow' | 'red' | 'purple' | 'blue' | 'gray' | 'orange' | 'outline';

export function Badge({ tone = 'gray', children, title, className }: { tone?: Tone; children: ReactNode; title?: string; className?: string }) {
  return (
    <span className={['badge', `badge-${tone}`, className].filter(Boolean).join(' ')} title={title}>
      {children}
    </span>
  );
}
