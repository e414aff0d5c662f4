/**
 * The realtime channel (socket.io at /socket.io on the app's own origin): one socket per signed-in session,
 * created only when signed in and not offline, whose handshake reads the access token at the moment it
 * connects (`auth` callback). Signing out closes it; a new access token reconnects it (the server checks
 * the token only at the handshake and drops the socket when that token expires).
 *
 * Reconnection is socket.io's own for lost connections: 1 s growing to 5 s, randomisation 0.5, no limit,
 * 20 s connect timeout. A handshake the server refuses, or a drop at the token's expiry, is not retried
 * with the same token: the socket waits for the next token (any API call refreshes it), and renews it
 * itself only when something on screen needs the channel (the open chat, a pending submission) or the
 * window regains focus — an idle tab never refreshes its session by itself.
 *
 * Live notices: `submission` {id} refetches the cached reads of that submission (the views stop polling
 * while the channel carries their news, see components/submission/polling.ts); `watch` asks the server for
 * the notices of one submission or contest, re-asked after every reconnect.
 */
import { useQueryClient, type Query, type QueryClient } from '@tanstack/react-query';
import { createContext, createElement, use, useEffect, useRef, useState, useSyncExternalStore, type ReactNode } from 'react';
import { io, type Socket } from 'socket.io-client';
import { REALTIME_EVENTS } from '@otog/schemas/common/chat';
import { renewSession } from './api.ts';
import { config } from './config.ts';
import { readAccessToken } from './cookies.ts';
import { useSession } from './session.tsx';

export const REALTIME_PATH = '/socket.io';

/** socket.io's reconnection and timeout settings (spec section 9). */
export const SOCKET_OPTIONS = {
  path: REALTIME_PATH,
  reconnection: true,
  reconnectionAttempts: Infinity,
  reconnectionDelay: 1_000,
  reconnectionDelayMax: 5_000,
  randomizationFactor: 0.5,
  timeout: 20_000,
  // WebSocket first (a long-poll would keep a request open on every page), long-polling if it fails.
  transports: ['websocket', 'polling'],
  tryAllTransports: true,
} as const;

/** How long a `watch` or a chat message waits for the server's answer. */
export const ACK_TIMEOUT_MS = 10_000;

export type WatchTarget = { readonly submissionId: number } | { readonly contestId: number };
export const roomOf = (target: WatchTarget) => ('submissionId' in target ? `submission:${target.submissionId}` : `contest:${target.contestId}`);

type Handler = (...args: unknown[]) => void;

interface Watch {
  readonly target: WatchTarget;
  count: number;
  /** The server agreed (ack {ok: true}) on the current connection. */
  live: boolean;
}

export class RealtimeClient {
  readonly socket: Socket;
  /** The token the last handshake carried. */
  private handshakeToken: string | null = null;
  /** Refused or dropped with `handshakeToken`: waits for a new token (or for someone to need it). */
  private waitingForToken = false;
  /** The stale token a renewal was already tried for (one try per token). */
  private renewedFor: string | null = null;
  private demand = 0;
  private closed = false;
  private readonly watches = new Map<string, Watch>();
  private readonly listeners = new Set<() => void>();
  private version = 0;

  constructor(readonly userId: number) {
    this.socket = io({
      ...SOCKET_OPTIONS,
      transports: [...SOCKET_OPTIONS.transports],
      autoConnect: false,
      forceNew: true,
      auth: (give: (data: object) => void) => {
        this.handshakeToken = readAccessToken();
        give({ token: this.handshakeToken ?? '' });
      },
    });
    this.socket.on('connect', () => {
      this.waitingForToken = false;
      // The token changed while the handshake was on its way: the server knows the older one.
      if (this.handshakeToken !== readAccessToken()) return this.restart();
      for (const [room, watch] of this.watches) this.askToWatch(room, watch);
      this.changed();
    });
    this.socket.on('disconnect', (reason) => {
      for (const watch of this.watches.values()) watch.live = false;
      // The server ended it (the token expired, the session ended): socket.io does not retry those.
      if (reason === 'io server disconnect') this.refused();
      this.changed();
    });
    this.socket.on('connect_error', () => {
      // Not active: the server refused the handshake (socket.io gives up); otherwise it retries by itself.
      if (!this.socket.active) this.refused();
      this.changed();
    });
    this.socket.connect();
  }

  get connected(): boolean {
    return this.socket.connected;
  }

  /** A number that changes whenever `connected` or a watch's state does (for useSyncExternalStore). */
  snapshot = (): number => this.version;

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  private changed(): void {
    this.version++;
    for (const listener of this.listeners) listener();
  }

  /** Reconnects with the token there is now. */
  private restart(): void {
    if (this.closed) return;
    if (this.socket.connected || this.socket.active) this.socket.disconnect();
    this.socket.connect();
  }

  /** The server would not take (or keep) the socket with the token it had. */
  private refused(): void {
    if (this.closed) return;
    if (readAccessToken() !== this.handshakeToken) return this.restart();
    this.waitingForToken = true;
    if (this.demand > 0) this.renew();
  }

  /** Gets a new access token (one try per stale token) and reconnects with it. */
  private renew(): void {
    const stale = this.handshakeToken;
    if (!this.waitingForToken || this.closed || stale === null) return;
    // Someone refreshed meanwhile: the new token is enough.
    if (readAccessToken() !== stale) return this.restart();
    if (this.renewedFor === stale) return;
    this.renewedFor = stale;
    void renewSession().then((renewed) => {
      if (renewed && this.waitingForToken) this.restart();
    });
  }

  /** The session's token may have changed: a socket that used another one reconnects with it. */
  tokenChanged(): void {
    if (this.closed) return;
    const token = readAccessToken();
    if (token === null || token === this.handshakeToken) return;
    if (this.socket.connected || this.socket.active || this.waitingForToken) this.restart();
  }

  /** The window regained focus: a socket waiting for a token gets one now. */
  focused(): void {
    if (this.waitingForToken) this.renew();
  }

  /** Something on screen needs the channel while it lasts: a refused socket renews its token. */
  need(): () => void {
    this.demand++;
    if (this.waitingForToken) this.renew();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.demand--;
    };
  }

  on(event: string, handler: Handler): () => void {
    this.socket.on(event, handler);
    return () => void this.socket.off(event, handler);
  }

  /** Sends and waits for the server's answer (rejects on timeout or when not connected). */
  async request<T>(event: string, ...args: unknown[]): Promise<T> {
    if (!this.socket.connected) throw new Error('disconnected');
    return (await this.socket.timeout(ACK_TIMEOUT_MS).emitWithAck(event, ...args)) as T;
  }

  /** Asks for `target`'s notices while the returned function is not called (counted: several views may watch one). */
  watch(target: WatchTarget): () => void {
    const room = roomOf(target);
    let watch = this.watches.get(room);
    if (!watch) {
      watch = { target, count: 0, live: false };
      this.watches.set(room, watch);
      if (this.socket.connected) this.askToWatch(room, watch);
    }
    watch.count++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const current = this.watches.get(room);
      if (!current || --current.count > 0) return;
      this.watches.delete(room);
      if (this.socket.connected) this.socket.emit(REALTIME_EVENTS.unwatch, target);
      if (current.live) this.changed();
    };
  }

  private askToWatch(room: string, watch: Watch): void {
    this.socket.timeout(ACK_TIMEOUT_MS).emit(REALTIME_EVENTS.watch, watch.target, (error: Error | null, reply?: { ok?: boolean }) => {
      const live = !error && reply?.ok === true && this.socket.connected && this.watches.get(room) === watch;
      if (live === watch.live) return;
      watch.live = live;
      this.changed();
    });
  }

  /** The server agreed to tell this socket about `room`, and the socket is connected. */
  isWatched(target: WatchTarget): boolean {
    return this.socket.connected && this.watches.get(roomOf(target))?.live === true;
  }

  close(): void {
    this.closed = true;
    this.watches.clear();
    this.socket.removeAllListeners();
    this.socket.disconnect();
    this.changed();
  }
}

/** The session's client, for code outside React (a query's refetchInterval). */
let active: RealtimeClient | null = null;

/**
 * Whether the channel will announce changes of this submission: connected, and it is the signed-in user's
 * (the server tells the owner's sockets) or a watch on it was accepted.
 */
export function realtimeCovers(submission: { readonly id: number; readonly userId: number }): boolean {
  if (!active?.connected) return false;
  return submission.userId === active.userId || active.isWatched({ submissionId: submission.id });
}

const RealtimeContext = createContext<RealtimeClient | null>(null);

const SUBMISSION_PATH = '/submission/:submissionId';
const submissionIdOf = (query: Query): number | null => {
  const [method, path, params] = query.queryKey as readonly unknown[];
  if (method !== 'GET' || typeof path !== 'string' || !(path === SUBMISSION_PATH || path.startsWith(`${SUBMISSION_PATH}/`))) return null;
  const id = (params as { submissionId?: unknown } | undefined)?.submissionId;
  return typeof id === 'number' ? id : null;
};
const isPendingData = (data: unknown) => {
  const status = (data as { status?: unknown } | undefined)?.status;
  return status === 'waiting' || status === 'grading';
};

/**
 * Refetches the cached reads of one submission (GET /submission/{id}, its code...); with `unsettled`, only
 * those still loading or pending.
 */
export function refetchSubmission(queryClient: QueryClient, id: number, unsettled = false): Promise<void> {
  return queryClient.invalidateQueries({
    predicate: (query) =>
      submissionIdOf(query) === id && (!unsettled || (query.state.data === undefined && query.state.error === null) || isPendingData(query.state.data)),
  });
}

/** `submission` {id}: refetch what is cached of it; of an id not on screen (a new one), the "latest" reads. */
function onSubmissionNotice(queryClient: QueryClient, id: number): void {
  const known = queryClient.getQueryCache().findAll({ predicate: (query) => submissionIdOf(query) === id });
  if (known.length > 0) {
    void refetchSubmission(queryClient, id);
    return;
  }
  void queryClient.invalidateQueries({
    predicate: ({ queryKey }) => queryKey[0] === 'GET' && (queryKey[1] === '/submission/latest' || queryKey[1] === '/submission/problem/:problemId/latest'),
  });
}

/** After a (re)connection: what was pending may have settled while nobody told us. */
function refetchPending(queryClient: QueryClient): void {
  void queryClient.invalidateQueries({ predicate: (query) => submissionIdOf(query) !== null && isPendingData(query.state.data) });
}

export function RealtimeProvider({ children }: { children: ReactNode }) {
  const { user } = useSession();
  const queryClient = useQueryClient();
  const userId = !config.offline && user ? user.id : null;
  const [client, setClient] = useState<RealtimeClient | null>(null);

  useEffect(() => {
    if (userId === null) return;
    const created = new RealtimeClient(userId);
    active = created;
    setClient(created);
    const offNotice = created.on(REALTIME_EVENTS.submission, (notice) => {
      const id = (notice as { id?: unknown } | null)?.id;
      if (typeof id === 'number') onSubmissionNotice(queryClient, id);
    });
    const offConnect = created.on('connect', () => refetchPending(queryClient));
    const onFocus = () => created.focused();
    window.addEventListener('focus', onFocus);
    return () => {
      window.removeEventListener('focus', onFocus);
      offNotice();
      offConnect();
      created.close();
      if (active === created) active = null;
      setClient(null);
    };
  }, [userId, queryClient]);

  // A new token (a refresh, a sign-in elsewhere): the session's user object is re-read from it.
  useEffect(() => {
    client?.tokenChanged();
  }, [client, user]);

  return createElement(RealtimeContext.Provider, { value: client }, children);
}

/** The session's realtime client; null when signed out, offline, or outside the provider. */
export function useRealtime(): RealtimeClient | null {
  return use(RealtimeContext);
}

const noSubscribe = () => () => {};
const zero = () => 0;

/** Re-renders when the connection or a watch changes; answers whether the socket is connected. */
export function useRealtimeConnected(): boolean {
  const client = useRealtime();
  useSyncExternalStore(client?.subscribe ?? noSubscribe, client?.snapshot ?? zero);
  return client?.connected ?? false;
}

/** Calls `handler` on every `event` from the server while mounted (the latest handler, no resubscribing). */
export function useRealtimeEvent<A extends unknown[]>(event: string, handler: (...args: A) => void): void {
  const client = useRealtime();
  const latest = useRef(handler);
  useEffect(() => {
    latest.current = handler;
  });
  useEffect(() => {
    if (!client) return;
    return client.on(event, (...args) => latest.current(...(args as A)));
  }, [client, event]);
}

/**
 * Watches `target` while mounted and `enabled`; answers whether the server accepted the watch on the
 * current connection (re-renders when that changes).
 */
export function useWatch(target: WatchTarget | null, enabled = true): boolean {
  const client = useRealtime();
  useSyncExternalStore(client?.subscribe ?? noSubscribe, client?.snapshot ?? zero);
  const room = target ? roomOf(target) : null;
  useEffect(() => {
    if (!client || !enabled || !target) return;
    return client.watch(target);
    // `room` stands for `target` (a new object on every render).
  }, [client, enabled, room]);
  return client !== null && target !== null && enabled && client.isWatched(target);
}

/** Keeps the channel up (renewing a refused token) while mounted and `enabled`: the open chat, a pending submission. */
export function useRealtimeNeeded(enabled: boolean): void {
  const client = useRealtime();
  useEffect(() => {
    if (!client || !enabled) return;
    return client.need();
  }, [client, enabled]);
}
