/**
 * A user's photo (/api/images/{id}.jpeg 320 px, {id}_32.jpeg small), or a generated fallback (initial on one
 * of OTOG's six pastel colours) when there is none, it failed to load, or the site is offline.
 */
import { useState } from 'react';
import { apiUrl } from '../lib/api.ts';
import { config } from '../lib/config.ts';
import { userContract } from '@otog/schemas/api/user';

const PASTELS = ['#ffd5ae', '#b1e9fc', '#b9f6ba', '#ffb1b2', '#ffe0ae', '#CBD5E0'] as const;
const SIZES = { sm: 24, md: 40, lg: 320 } as const;

type AvatarState = 'loading' | 'loaded' | 'error';

/** `version` (e.g. the time of an upload) makes the browser fetch a replaced photo instead of its cached copy. */
export function UserAvatar({ userId, name, size = 'sm', version }: { userId: number; name: string; size?: keyof typeof SIZES; version?: number }) {
  const [state, setState] = useState<AvatarState>(config.offline ? 'error' : 'loading');
  const pixels = SIZES[size];
  const file = size === 'lg' ? `${userId}.jpeg` : `${userId}_32.jpeg`;
  const fallback = (
    <span
      className="avatar avatar-fallback"
      style={{ width: pixels, height: pixels, background: PASTELS[userId % PASTELS.length], fontSize: pixels * 0.45 }}
      aria-hidden
    >
      {Array.from(name.trim())[0]?.toUpperCase() ?? '?'}
    </span>
  );
  if (state === 'error') return fallback;
  return (
    <span className="avatar-wrap" style={{ width: pixels, height: pixels }}>
      {state === 'loading' ? fallback : null}
      <img
        className="avatar"
        src={apiUrl(userContract.avatar, { params: { file }, query: { v: version } })}
        alt=""
        width={pixels}
        height={pixels}
        loading="lazy"
        style={state === 'loading' ? { position: 'absolute', opacity: 0 } : undefined}
        onLoad={() => setState('loaded')}
        onError={() => setState('error')}
      />
    </span>
  );
}
