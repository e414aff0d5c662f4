/**
 * The realtime channel: socket.io at /socket.io on the API's own port. A socket is a signed-in user's: the
 * handshake's access token is verified (signature, expiry, and that its session still stands) and the
 * socket is dropped when the token expires or the session ends, so the client reconnects with its new one.
 *
 * Chat: a client sends `chat-server`; a valid message is appended as an event and pushed as `chat` to
 * every socket, on every node through the Redis adapter. Presence: `online` is pushed when a node's set of
 * online users changes, at most once a second per node (a reconnect, a second tab or a connect storm of
 * 10,000 sockets does not push 10,000 × 10,000 messages; clients refetch the list only while they show it).
 * Live notices: every node hears the read models' after-commit notices and tells its own
 * sockets in the matching rooms (`user:<id>`, `submission:<id>`, `contest:<id>`) what changed; clients refetch.
 */
import type { FastifyInstance } from 'fastify';
import { createAdapter } from '@socket.io/redis-adapter';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { Server, type Socket } from 'socket.io';
import type { Notice, Notifier } from '@otog/platform/notices/notice';
import { CHAT_NOTICE, createContestQueries, createSubmissionQueries } from '@otog/projections';
import { checkChatMessage, CHAT_TOO_FAST_MESSAGE, REALTIME_EVENTS } from '@otog/schemas/common/chat';
import { isAdmin, verifiedPayload, type AuthUser } from '../http/access.ts';
import { createKeyRateLimit } from '../http/key-rate-limit.ts';
import type { ApiDependencies } from '../http/settings.ts';
import { boardOpenTo, timesOf } from '../modules/contests/contest-access.ts';
import { postChatMessage } from '../modules/chat/chat-commands.ts';
import { canSeeSubmission } from '../modules/submissions/rules.ts';
import { contestVisibility } from '../modules/contests/contest-lookup.ts';
import type { Presence } from './presence.ts';
import { createThrottle } from './throttle.ts';

export const SOCKET_PATH = '/socket.io';
/**
 * How often a node checks all its sockets' sessions in bulk. A logout, password reset or demotion drops the
 * session's sockets at once (the session guard hears of every change); the sweep only covers a change
 * notification lost with a dropped database connection.
 */
const SESSION_SWEEP_MS = 60_000;
/** Sessions per bulk check query. */
const SESSION_SWEEP_CHUNK = 5_000;
/** At most one scoreboard notice per contest per this many ms, the last one always delivered. */
const SCOREBOARD_NOTICE_MS = 1_000;
/** How fast one user may chat: a burst of 5 messages in any 10 s. */
const CHAT_RATE = { max: 5, windowMs: 10_000 };
/** At most one `online` push per node per this many ms, the last one always delivered. */
const ONLINE_NOTICE_MS = 1_000;

/** What a refused handshake tells the client (`connect_error`: `message` and `data`). */
export const SOCKET_REFUSALS = {
  noToken: 'Unauthorized: sign in first',
  invalidToken: 'Invalid or expired access token',
  offline: 'The chat is closed in offline mode',
} as const;

interface SocketData {
  user: AuthUser;
  sid: string;
}
type OtogSocket = Socket<Record<string, never>, Record<string, never>, Record<string, never>, SocketData>;

export interface RealtimeOptions {
  readonly app: Pick<FastifyInstance, 'jwt' | 'server'>;
  readonly deps: ApiDependencies;
  readonly notices: Notifier;
  readonly presence: Presence;
  /** With it, emits reach the sockets of every node (the Redis adapter) and chat rate limits are shared. */
  readonly redisUrl?: string;
  readonly logger: Logger;
  /** Allowed cross-origin web apps; the same origin always works. */
  readonly corsOrigins?: readonly string[];
  /** Prefix of this deployment's Redis keys and channels (default `otog`): deployments sharing a Redis stay apart. */
  readonly namespace?: string;
}

export interface Realtime {
  readonly io: Server;
  close(): Promise<void>;
}

export async function startRealtime(options: RealtimeOptions): Promise<Realtime> {
  const { app, deps, presence, logger } = options;
  const namespace = options.namespace ?? 'otog';
  const io = new Server(app.server, {
    path: SOCKET_PATH,
    serveClient: false,
    connectTimeout: 20_000,
    maxHttpBufferSize: 16 * 1024,
    cors: { origin: [...(options.corsOrigins ?? [])], credentials: true },
  });
  let pub: Redis | undefined;
  let sub: Redis | undefined;
  if (options.redisUrl) {
    pub = new Redis(options.redisUrl, { lazyConnect: true });
    sub = pub.duplicate();
    await Promise.all([pub.connect(), sub.connect()]);
    io.adapter(createAdapter(pub, sub, { key: `${namespace}-socket.io` }));
  }
  const chatLimit = createKeyRateLimit({ ...(deps.redis ? { redis: deps.redis } : {}), prefix: `${namespace}-chat-rate:`, ...CHAT_RATE });
  const submissions = createSubmissionQueries(deps.pool);
  const contests = createContestQueries(deps.pool);
  const safely = (what: string, work: Promise<unknown>) => void work.catch((error: unknown) => logger.warn({ err: error }, `realtime: ${what} failed`));

  io.use((socket, next) => {
    const token: unknown = socket.handshake.auth?.token;
    const refuse = (message: string) => next(Object.assign(new Error(message), { data: { message } }));
    if (typeof token !== 'string' || token === '') return refuse(SOCKET_REFUSALS.noToken);
    const payload = verifiedPayload(app, token);
    if (!payload) return refuse(SOCKET_REFUSALS.invalidToken);
    deps.sessions.isCurrent(payload).then(
      (current) => {
        if (!current) return refuse(SOCKET_REFUSALS.invalidToken);
        const user: AuthUser = { id: payload.id, username: payload.username, showName: payload.showName, role: payload.role, rating: payload.rating };
        if (deps.settings.offline && !isAdmin(user)) return refuse(SOCKET_REFUSALS.offline);
        (socket as OtogSocket).data = { user, sid: payload.sid };
        // Dropped when the token expires: the client reconnects with the token it has by then.
        const expiresIn = payload.exp === undefined ? 0 : payload.exp * 1_000 - Date.now();
        if (expiresIn > 0) {
          const timer = setTimeout(() => socket.disconnect(true), Math.min(expiresIn, 2_147_483_647));
          socket.once('disconnect', () => clearTimeout(timer));
        }
        next();
      },
      (error: unknown) => next(error instanceof Error ? error : new Error(String(error))),
    );
  });

  const onlineChanged = createThrottle(ONLINE_NOTICE_MS, () => io.emit(REALTIME_EVENTS.online));
  const announceIfChanged = (changed: boolean) => {
    if (changed) onlineChanged.call('online');
  };

  io.on('connection', (raw) => {
    const socket = raw as OtogSocket;
    const { user } = socket.data;
    void socket.join(`user:${user.id}`);
    safely('presence', presence.connect(user.id).then(announceIfChanged));
    socket.once('disconnect', () => safely('presence', presence.disconnect(user.id).then(announceIfChanged)));

    socket.on(REALTIME_EVENTS.chatServer, (text: unknown, ack?: unknown) => {
      const answer = typeof ack === 'function' ? (ack as (reply: object) => void) : () => {};
      const checked = checkChatMessage(text);
      if (!checked.ok) return answer({ ok: false, message: checked.reason });
      safely(
        'chat',
        (async () => {
          if (!(await deps.sessions.isCurrent({ id: user.id, role: user.role, sid: socket.data.sid }))) return socket.disconnect(true);
          if (!(await chatLimit.allow(String(user.id)))) return answer({ ok: false, message: CHAT_TOO_FAST_MESSAGE });
          const push = await postChatMessage(deps, user, checked.message);
          io.emit(REALTIME_EVENTS.chat, push);
          answer({ ok: true, id: push[0] });
        })(),
      );
    });

    socket.on(REALTIME_EVENTS.watch, (target: unknown, ack?: unknown) => {
      const answer = typeof ack === 'function' ? (ack as (reply: object) => void) : () => {};
      safely(
        'watch',
        roomFor(target, user).then((room) => {
          if (room) void socket.join(room);
          answer({ ok: room !== null });
        }),
      );
    });
    socket.on(REALTIME_EVENTS.unwatch, (target: unknown) => {
      const room = roomName(target);
      if (room && !room.startsWith('user:')) void socket.leave(room);
    });
  });

  /** The room a watch asks for, if the user may see what it announces. */
  async function roomFor(target: unknown, user: AuthUser): Promise<string | null> {
    const room = roomName(target);
    if (!room) return null;
    const [kind, id] = room.split(':') as [string, string];
    if (kind === 'submission') {
      const submission = await submissions.facts(Number(id));
      return submission && canSeeSubmission(user, submission, await contestVisibility(deps.pool, user)) ? room : null;
    }
    const contest = await contests.find(Number(id));
    return contest && boardOpenTo(timesOf(contest), isAdmin(user), Date.now()) ? room : null;
  }

  // Every node hears every notice and tells only its own sockets (io.local): no node relays another's.
  const scoreboard = createThrottle(SCOREBOARD_NOTICE_MS, (contestId: string) =>
    io.local.to(`contest:${contestId}`).emit(REALTIME_EVENTS.scoreboard, { id: Number(contestId) }),
  );
  const onNotice = (notice: Notice) => {
    if (notice.topic === 'submission') {
      const rooms = [`submission:${notice.key}`, ...(typeof notice.data?.userId === 'number' ? [`user:${notice.data.userId}`] : [])];
      io.local.to(rooms).emit(REALTIME_EVENTS.submission, { id: Number(notice.key) });
    } else if (notice.topic === 'scoreboard') {
      scoreboard.call(notice.key);
    } else if (notice.topic === CHAT_NOTICE && notice.data?.deleted) {
      io.local.emit(REALTIME_EVENTS.chatDeleted, Number(notice.key));
    }
  };
  const unsubscribe = options.notices.subscribe(onNotice);

  // Sessions end elsewhere too (logout, a password reset, a demotion): the sockets of such a session leave.
  const signedInSockets = () => [...io.of('/').sockets.values()].map((raw) => raw as OtogSocket).filter((socket) => socket.data.user);
  const dropEnded = async (sockets: readonly OtogSocket[]) => {
    for (let first = 0; first < sockets.length; first += SESSION_SWEEP_CHUNK) {
      const chunk = sockets.slice(first, first + SESSION_SWEEP_CHUNK);
      const standing = await deps.sessions.standing(chunk.map(({ data }) => ({ id: data.user.id, role: data.user.role, sid: data.sid })));
      for (const socket of chunk) if (!standing.has(socket.data.sid)) socket.disconnect(true);
    }
  };
  const stopWatchingSessions = deps.sessions.onChange((change) => {
    const affected = signedInSockets().filter(({ data }) => ('userId' in change ? data.user.id === change.userId : data.sid === change.familyId));
    if (affected.length > 0) safely('session check', dropEnded(affected));
  });
  const sessionSweep = setInterval(() => safely('session sweep', dropEnded(signedInSockets())), SESSION_SWEEP_MS);
  sessionSweep.unref();

  return {
    io,
    async close() {
      clearInterval(sessionSweep);
      stopWatchingSessions();
      unsubscribe();
      scoreboard.cancel();
      onlineChanged.cancel();
      io.local.disconnectSockets(true);
      io.engine.close();
      await presence.close().catch(() => {});
      await Promise.all([pub?.quit(), sub?.quit()].map((quit) => quit?.catch(() => {})));
    },
  };
}

/** `{ submissionId }` → `submission:<id>`, `{ contestId }` → `contest:<id>`, anything else null. */
function roomName(target: unknown): string | null {
  if (typeof target !== 'object' || target === null) return null;
  const { submissionId, contestId } = target as { submissionId?: unknown; contestId?: unknown };
  const valid = (id: unknown): id is number => typeof id === 'number' && Number.isInteger(id) && id > 0 && id <= 2_147_483_647;
  if (valid(submissionId)) return `submission:${submissionId}`;
  if (valid(contestId)) return `contest:${contestId}`;
  return null;
}
