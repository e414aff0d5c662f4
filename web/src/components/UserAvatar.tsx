/**
 * A user's photo (/api/images/{id}.jpeg 320 px, {id}_32.jpeg small), or a generated fallback (initial on one
 * of OTOG's six pastel colours) when there is none, it failed to load, or the site is offline.
 *
 * The server lets browsers keep a photo for a minute, so after an upload every avatar of that user asks for
 * it with a version (`?v=`): the upload's time, kept in the query cache (every avatar on screen follows it at
 * once) and in the tab's session storage (a reload within that minute still shows the new photo).
 */
import { useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useCallback, useState } from 'react';
import { apiUrl } from '../lib/api.ts';
import { config } from '../lib/config.ts';
import { userContract } from '@otog/schemas/api/user';

const PASTELS = ['#ffd5ae', '#b1e9fc', '#b9f6ba', '#ffb1b2', '#ffe0ae', '#CBD5E0'] as const;
const SIZES = { sm: 24, md: 40, lg: 320 } as const;

const avatarVersionKey = (userId: number) => ['avatar-version', userId] as const;
const storageKey = (userId: number) => `avatar-version:${userId}`;

function storedVersion(userId: number): number | null {
  try {
    const value = Number(sessionStorage.getItem(storageKey(userId)));
    return Number.isFinite(value) && value > 0 ? value : null;
  } catch {
    return null;
  }
}

/** After an upload: every avatar of `userId` loads the new photo. */
export function avatarReplaced(queryClient: QueryClient, userId: number, version = Date.now()): void {
  try {
    sessionStorage.setItem(storageKey(userId), String(version));
  } catch {
    // Private mode: the version lasts for this page.
  }
  queryClient.setQueryData(avatarVersionKey(userId), version);
}

/** The version of `userId`'s photo to ask for: null until it is replaced in this tab. */
export function useAvatarVersion(userId: number): number | null {
  const { data } = useQuery({
    queryKey: avatarVersionKey(userId),
    queryFn: () => storedVersion(userId),
    initialData: () => storedVersion(userId),
    staleTime: Infinity,
    enabled: !config.offline,
  });
  return data ?? null;
}

/** Notes an upload of `userId`'s photo (for the upload form). */
export function useAvatarReplaced(userId: number): () => void {
  const queryClient = useQueryClient();
  return useCallback(() => avatarReplaced(queryClient, userId), [queryClient, userId]);
}

export function UserAvatar({ userId, name, size = 'sm' }: { userId: number; name: string; size?: keyof typeof SIZES }) {
  const version = useAvatarVersion(userId);
  const pixels = SIZES[size];
  const file = size === 'lg' ? `${userId}.jpeg` : `${userId}_32.jpeg`;
  const src = apiUrl(userContract.avatar, { params: { file }, query: { v: version ?? undefined } });
  // Whether the image loaded is remembered per URL: a new version starts loading again (a user who had no
  // photo gets theirs).
  const [outcome, setOutcome] = useState<{ src: string; loaded: boolean } | null>(null);
  const state = config.offline ? 'error' : outcome?.src !== src ? 'loading' : outcome.loaded ? 'loaded' : 'error';
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
        src={src}
        alt=""
        width={pixels}
        height={pixels}
        loading="lazy"
        style={state === 'loading' ? { position: 'absolute', opacity: 0 } : undefined}
        onLoad={() => setOutcome({ src, loaded: true })}
        onError={() => setOutcome({ src, loaded: false })}
      />
    </span>
  );
}
