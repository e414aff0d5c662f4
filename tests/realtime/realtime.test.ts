/**
 * The realtime channel across two API nodes sharing Redis: node A in this process, node B in a child
 * process (so it can be killed). Handshakes are verified, chat crosses nodes and is validated, presence
 * spans both nodes and forgets a crashed one within its expiry, live notices reach the rooms that watch.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { io as connect, type Socket } from 'socket.io-client';
import { chatContract } from '@otog/schemas/api/chat';
import { userContract } from '@otog/schemas/api/user';
import { CHAT_EMPTY_MESSAGE, CHAT_NOT_TEXT_MESSAGE, CHAT_TOO_FAST_MESSAGE, CHAT_TOO_LONG_MESSAGE, REALTIME_EVENTS, type ChatPush } from '@otog/schemas/common/chat';
import { SOCKET_REFUSALS } from '@otog/api/realtime/gateway';
import { startStack, type Stack, type TestUser } from '../api/support/stack.ts';

const NODE_B = fileURLToPath(new URL('./support/api-node.ts', import.meta.url));
const NODE_B_PRESENCE_TTL_MS = 1_500;

let stack: Stack;
let nodeB: ChildProcess;
let urlB: string;
let admin: TestUser;
let alice: TestUser;
let bob: TestUser;
const sockets: Socket[] = [];

beforeAll(async () => {
  const namespace = `otog-test-${process.pid}-${Date.now()}`;
  stack = await startStack({ realtime: { namespace } });
  nodeB = spawn(process.execPath, [NODE_B], {
    env: {
      ...process.env,
      DATABASE_URL: stack.db.url,
      JWT_SECRET: stack.deps.settings.jwtSecret,
      NAMESPACE: namespace,
      PRESENCE_TTL_MS: String(NODE_B_PRESENCE_TTL_MS),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  urlB = await new Promise<string>((resolve, reject) => {
    nodeB.once('exit', (code) => reject(new Error(`node B exited (${code}) before listening`)));
    createInterface({ input: nodeB.stdout! }).on('line', (line) => {
      const port = /^listening (\d+)$/.exec(line)?.[1];
      if (port) resolve(`http://127.0.0.1:${port}`);
    });
  });
  admin = await stack.createUser({ role: 'admin' });
  alice = await stack.createUser({ showName: `อลิซ ${process.pid}` });
  bob = await stack.createUser();
}, 60_000);
afterAll(async () => {
  for (const socket of sockets) socket.disconnect();
  nodeB?.kill('SIGKILL');
  await stack?.stop();
});

/** A connected socket (or the connect_error it met). */
function open(url: string, token: string | null): Promise<Socket> {
  const socket = connect(url, { path: '/socket.io', transports: ['websocket'], auth: token === null ? {} : { token }, reconnection: false });
  sockets.push(socket);
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(socket));
    socket.once('connect_error', reject);
  });
}

/** Collects what a socket receives of one event. */
function collect<T = unknown>(socket: Socket, event: string): T[] {
  const received: T[] = [];
  socket.on(event, (...args: unknown[]) => received.push((args.length === 1 ? args[0] : args) as T));
  return received;
}

async function until(what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const send = (socket: Socket, message: unknown) => socket.timeout(5_000).emitWithAck(REALTIME_EVENTS.chatServer, message) as Promise<{ ok: boolean; message?: string; id?: number }>;
const history = () => stack.expectCall(chatContract.getChats, 200, { as: alice });

describe('handshake', () => {
  it('refuses a socket without a token, with a forged one and with an expired one', async () => {
    await expect(open(stack.url!, null)).rejects.toMatchObject({ message: SOCKET_REFUSALS.noToken, data: { message: SOCKET_REFUSALS.noToken } });
    const forged = stack.app.jwt.sign({ ...alice, jti: 'x', sid: 'y' }).replace(/.$/, (c) => (c === 'A' ? 'B' : 'A'));
    await expect(open(urlB, forged)).rejects.toMatchObject({ message: SOCKET_REFUSALS.invalidToken });
    const expired = stack.app.jwt.sign({ ...alice, jti: 'x', sid: 'y' }, { expiresIn: -10 });
    await expect(open(stack.url!, expired)).rejects.toMatchObject({ message: SOCKET_REFUSALS.invalidToken });
    // Signed right but of no session: refused too.
    await expect(open(stack.url!, stack.app.jwt.sign({ ...alice, jti: 'x', sid: '00000000-0000-4000-8000-000000000000' }))).rejects.toMatchObject({
      message: SOCKET_REFUSALS.invalidToken,
    });
  });
});

describe('chat and presence across two nodes', () => {
  let aliceA: Socket;
  let bobB: Socket;
  let chatsOfBob: ChatPush[];
  let chatsOfAlice: ChatPush[];

  it('users on both nodes are online; everyone hears `online` when someone comes online', async () => {
    aliceA = await open(stack.url!, alice.token);
    const onlineOfAlice = collect(aliceA, REALTIME_EVENTS.online);
    bobB = await open(urlB, bob.token);
    chatsOfBob = collect<ChatPush>(bobB, REALTIME_EVENTS.chat);
    chatsOfAlice = collect<ChatPush>(aliceA, REALTIME_EVENTS.chat);
    await until('alice hears bob come online', () => onlineOfAlice.length > 0);
    for (const as of [alice, bob]) {
      const online = await stack.expectCall(userContract.online, 200, { as });
      expect(online.map((user) => user.id).sort((a, b) => a - b)).toEqual([alice.id, bob.id].sort((a, b) => a - b));
      expect(online.find((user) => user.id === alice.id)?.showName).toBe(alice.showName);
    }
  });

  it('a second tab of someone already online changes nobody\'s list, so nobody hears `online`', async () => {
    const onlineOfBob = collect(bobB, REALTIME_EVENTS.online);
    // Past the one-second coalescing of the first test's pushes, then a second socket of Alice's on node A.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    onlineOfBob.length = 0;
    const secondTab = await open(stack.url!, alice.token);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    secondTab.disconnect();
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(onlineOfBob).toEqual([]);
    expect((await stack.expectCall(userContract.online, 200, { as: bob })).map((user) => user.id)).toContain(alice.id);
  });

  it('a message sent on node A reaches a socket on node B, as the positional push, and stays in the history', async () => {
    const answer = await send(aliceA, '  สวัสดีครับ 👋  ');
    expect(answer).toEqual({ ok: true, id: expect.any(Number) });
    await until('bob gets the message', () => chatsOfBob.length === 1);
    const [id, text, date, author] = chatsOfBob[0]!;
    expect([id, text, author]).toEqual([answer.id, 'สวัสดีครับ 👋', [alice.id, alice.showName, null]]);
    expect(Math.abs(Date.parse(date) - Date.now())).toBeLessThan(10_000);
    await until('alice gets her own message', () => chatsOfAlice.length === 1);
    await until('the history has it', async () => (await history()).some((row) => row.id === id));
    expect((await history())[0]).toMatchObject({ id, message: 'สวัสดีครับ 👋', userId: alice.id, creationDate: date, user: { id: alice.id, showName: alice.showName } });
  });

  it('refuses empty, blank, too long and non-text messages with their messages; nothing is stored or pushed', async () => {
    const before = await history();
    expect(await send(bobB, '')).toEqual({ ok: false, message: CHAT_EMPTY_MESSAGE });
    expect(await send(bobB, '   \n ')).toEqual({ ok: false, message: CHAT_EMPTY_MESSAGE });
    expect(await send(bobB, 'ก'.repeat(151))).toEqual({ ok: false, message: CHAT_TOO_LONG_MESSAGE });
    expect(await send(bobB, 42)).toEqual({ ok: false, message: CHAT_NOT_TEXT_MESSAGE });
    expect(await send(bobB, { message: 'hi' })).toEqual({ ok: false, message: CHAT_NOT_TEXT_MESSAGE });
    // 150 characters (emoji count as one each) is fine.
    expect((await send(bobB, '😀'.repeat(150))).ok).toBe(true);
    await until('the 150-character message arrives', () => chatsOfAlice.length === 2);
    // The push comes before the history's fold: wait for it there, then nothing else may have been stored.
    await until('the history has it', async () => (await history()).length > before.length);
    expect((await history()).length).toBe(before.length + 1);
  });

  it('a flood is refused after the burst; reserved event names from clients are ignored', async () => {
    // Bob has sent one message in this window already.
    const answers = [];
    for (let i = 0; i < 5; i += 1) answers.push(await send(bobB, `flood ${i}`));
    expect(answers.map((answer) => answer.ok)).toEqual([true, true, true, true, false]);
    expect(answers[4]).toEqual({ ok: false, message: CHAT_TOO_FAST_MESSAGE });
    bobB.emit(REALTIME_EVENTS.chat, [1, 'forged', new Date().toISOString(), [admin.id, 'admin', null]]);
    bobB.emit(REALTIME_EVENTS.online);
    bobB.emit(REALTIME_EVENTS.chatDeleted, 1);
    await until('the accepted flood messages arrive', () => chatsOfAlice.length === 6);
    // A message sent after the forged ones arrives next: nothing forged came in between.
    expect((await send(aliceA, 'after')).ok).toBe(true);
    await until('the next real message', () => chatsOfAlice.length === 7);
    expect(chatsOfAlice.map((push) => push[1])).not.toContain('forged');
    expect(chatsOfAlice[6]![1]).toBe('after');
  });

  it('an admin removes a message: it disappears for everyone, on both nodes', async () => {
    const deletedOnA = collect<number>(aliceA, REALTIME_EVENTS.chatDeleted);
    const deletedOnB = collect<number>(bobB, REALTIME_EVENTS.chatDeleted);
    const [target] = chatsOfBob;
    await stack.expectCall(chatContract.deleteChat, 403, { as: bob, params: { chatId: target![0] } });
    const removed = await stack.expectCall(chatContract.deleteChat, 200, { as: admin, params: { chatId: target![0] } });
    expect(removed).toMatchObject({ id: target![0], message: 'สวัสดีครับ 👋' });
    await until('both nodes push the removal', () => deletedOnA.length === 1 && deletedOnB.length === 1);
    expect([deletedOnA, deletedOnB]).toEqual([[target![0]], [target![0]]]);
    expect((await history()).map((row) => row.id)).not.toContain(target![0]);
    await stack.expectCall(chatContract.deleteChat, 404, { as: admin, params: { chatId: target![0] } });
  });

  it("a demotion on node A drops that user's socket on node B at once; other sockets stay", async () => {
    const demoted = await stack.createUser({ role: 'admin' });
    const socket = await open(urlB, demoted.token);
    const dropped = new Promise<string>((resolve) => socket.once('disconnect', resolve));
    const changedAt = Date.now();
    await stack.expectCall(userContract.update, 200, {
      as: admin,
      params: { userId: demoted.id },
      body: { username: demoted.username, showName: demoted.showName, role: 'user', password: '' },
    });
    expect(await dropped).toBe('io server disconnect');
    // The bulk sweep comes only once a minute: this was the change notification.
    expect(Date.now() - changedAt).toBeLessThan(5_000);
    expect([aliceA.connected, bobB.connected]).toEqual([true, true]);
  });

  it('node B crashes (kill -9): its users leave `online` within the expiry, with nobody cleaning up', async () => {
    nodeB.kill('SIGKILL');
    const killedAt = Date.now();
    await until(
      'bob to go offline',
      async () => !(await stack.expectCall(userContract.online, 200, { as: alice })).some((user) => user.id === bob.id),
      NODE_B_PRESENCE_TTL_MS + 5_000,
    );
    expect(Date.now() - killedAt).toBeLessThan(NODE_B_PRESENCE_TTL_MS + 2_000);
    expect((await stack.expectCall(userContract.online, 200, { as: alice })).map((user) => user.id)).toEqual([alice.id]);
  });
});

describe('live notices', () => {
  it('a submission’s owner and its watchers hear that it changed; a watch of what one may not see is refused', async () => {
    const owner = await open(stack.url!, bob.token);
    const watcher = await open(stack.url!, admin.token);
    const stranger = await open(stack.url!, alice.token);
    const ofOwner = collect<{ id: number }>(owner, REALTIME_EVENTS.submission);
    const ofWatcher = collect<{ id: number }>(watcher, REALTIME_EVENTS.submission);
    const ofStranger = collect<{ id: number }>(stranger, REALTIME_EVENTS.submission);

    const problemId = 41;
    const problemScope = `problem:${problemId}`;
    const problem = await stack.deps.store.append(`problem-${problemId}`, [
      { type: 'ProblemDetailsSet', scope: problemScope, data: { problemId, name: 'Live', sname: null, case: null } },
      { type: 'ProblemVisibilityChanged', scope: problemScope, data: { problemId, show: true } },
    ]);
    await stack.deps.projections.waitFor('problems', { ...problem.lastPosition, scope: problemScope }, 10_000);
    const submissionId = 777_001;
    const scope = `user:${bob.id}`;
    const created = await stack.deps.store.append(`submission-${submissionId}`, [
      { type: 'SubmissionCreated', scope, data: { submissionId, userId: bob.id, problemId, contestId: null, language: 'cpp', sourceCode: '', fileName: null } },
    ]);
    await stack.deps.projections.waitFor('submissions', { ...created.lastPosition, scope }, 10_000);
    await until('the owner hears of the new submission', () => ofOwner.length > 0);
    expect(await watcher.timeout(5_000).emitWithAck(REALTIME_EVENTS.watch, { submissionId })).toEqual({ ok: true });
    expect(await stranger.timeout(5_000).emitWithAck(REALTIME_EVENTS.watch, { contestId: 999_999 })).toEqual({ ok: false });
    expect(await stranger.timeout(5_000).emitWithAck(REALTIME_EVENTS.watch, 'nonsense')).toEqual({ ok: false });
    const before = ofOwner.length;
    await stack.deps.store.append(`submission-${submissionId}`, [{ type: 'RejudgeRequested', scope, data: { submissionId, requestedBy: admin.id } }]);
    await until('owner and watcher hear the change', () => ofOwner.length > before && ofWatcher.length > 0);
    expect(ofWatcher.at(-1)).toEqual({ id: submissionId });
    expect(ofStranger).toEqual([]);
  });
});
