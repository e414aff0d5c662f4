/**
 * A bounded process of realtime clients for the realtime bench (bench/realtime.ts): it opens its share of
 * the sockets (websocket transport, one manager each, as separate browsers would) and records when each
 * push arrives, on the machine's wall clock (`performance.timeOrigin + performance.now()`, shared by the
 * processes of one machine), so the bench can compute delivery latencies from the send or append times it
 * recorded itself. Chat pushes carry their send time in the text (`bench <ms>`).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { io as connect, type Socket } from 'socket.io-client';
import { REALTIME_EVENTS, type ChatPush } from '@otog/schemas/common/chat';
import { onCleanup } from './services.ts';

export interface ClientSpec {
  readonly url: string;
  readonly token: string;
}

export interface ClientReport {
  /** Per chat push received: arrival − send time in the text, ms. */
  readonly chatLatencies: number[];
  /** Per `submission` notice: [submission id, arrival wall time ms]. */
  readonly submissionArrivals: Array<[number, number]>;
  readonly onlinePushes: number;
  /** Sockets that disconnected since they connected. */
  readonly disconnects: number;
  /** CPU this process used so far, ms. */
  readonly cpuMs: number;
}

type Command = { kind: 'connect'; sockets: ClientSpec[]; concurrency: number } | { kind: 'report' } | { kind: 'close' };
type Reply = { kind: 'connected'; failed: number; firstError: string | null } | ({ kind: 'report' } & ClientReport) | { kind: 'error'; error: string };

export const wallClock = (): number => performance.timeOrigin + performance.now();

export interface ClientProcess {
  readonly pid: number;
  connect(sockets: ClientSpec[], concurrency: number): Promise<{ failed: number; firstError: string | null }>;
  /** What arrived since the last report. */
  report(): Promise<ClientReport>;
  close(): Promise<void>;
}

const CHILD = fileURLToPath(import.meta.url);

export function startClientProcess(): ClientProcess {
  const child: ChildProcess = fork(CHILD, ['--socket-clients'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: ['--max-old-space-size=4096'] });
  const kill = onCleanup(`socket clients ${child.pid}`, () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const ask = <K extends Reply['kind']>(command: Command, answer: K) =>
    new Promise<Extract<Reply, { kind: K }>>((resolve, reject) => {
      const onMessage = (reply: Reply) => {
        if (reply.kind === 'error') reject(new Error(`socket clients: ${reply.error}`));
        else if (reply.kind === answer) resolve(reply as Extract<Reply, { kind: K }>);
        else return;
        child.off('message', onMessage);
      };
      child.on('message', onMessage);
      child.send(command);
    });
  return {
    pid: child.pid!,
    async connect(sockets, concurrency) {
      const { failed, firstError } = await ask({ kind: 'connect', sockets, concurrency }, 'connected');
      return { failed, firstError };
    },
    async report() {
      const { kind: _kind, ...report } = await ask({ kind: 'report' }, 'report');
      return report;
    },
    async close() {
      if (child.connected) child.send({ kind: 'close' });
      await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(undefined)));
      await kill();
    },
  };
}

// ---- child side ----

function childMain(): void {
  const sockets: Socket[] = [];
  let report: { -readonly [K in keyof Omit<ClientReport, 'cpuMs'>]: ClientReport[K] } = { chatLatencies: [], submissionArrivals: [], onlinePushes: 0, disconnects: 0 };
  const send = (reply: Reply) => process.send!(reply);

  const open = (spec: ClientSpec) =>
    new Promise<void>((resolve, reject) => {
      const socket = connect(spec.url, { path: '/socket.io', transports: ['websocket'], auth: { token: spec.token }, reconnection: false, forceNew: true, timeout: 60_000 });
      socket.on(REALTIME_EVENTS.chat, (push: ChatPush) => {
        const sentAt = Number(/^bench (\d+(?:\.\d+)?)$/.exec(push[1])?.[1]);
        if (Number.isFinite(sentAt)) report.chatLatencies.push(wallClock() - sentAt);
      });
      socket.on(REALTIME_EVENTS.submission, (notice: { id: number }) => report.submissionArrivals.push([notice.id, wallClock()]));
      socket.on(REALTIME_EVENTS.online, () => report.onlinePushes++);
      socket.once('connect', () => {
        socket.once('disconnect', () => report.disconnects++);
        sockets.push(socket);
        resolve();
      });
      socket.once('connect_error', (error) => reject(error));
    });

  process.on('message', (command: Command) => {
    if (command.kind === 'connect') {
      let next = 0;
      let failed = 0;
      let firstError: string | null = null;
      void Promise.all(
        Array.from({ length: command.concurrency }, async () => {
          while (next < command.sockets.length) {
            const spec = command.sockets[next++]!;
            await open(spec).catch((error: unknown) => {
              failed++;
              firstError ??= error instanceof Error ? error.message : String(error);
            });
          }
        }),
      ).then(() => send({ kind: 'connected', failed, firstError }));
    } else if (command.kind === 'report') {
      const cpu = process.cpuUsage();
      send({ kind: 'report', ...report, cpuMs: (cpu.user + cpu.system) / 1000 });
      report = { chatLatencies: [], submissionArrivals: [], onlinePushes: 0, disconnects: report.disconnects };
    } else {
      for (const socket of sockets) socket.disconnect();
      setTimeout(() => process.exit(0), 200);
    }
  });
  process.on('uncaughtException', (error) => send({ kind: 'error', error: error.message }));
}

if (process.argv.includes('--socket-clients')) childMain();
