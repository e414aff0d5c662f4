/**
 * The chat widget and live verdicts in real browsers (Debian Chromium through playwright-core) against OTOG
 * started as `npm start` starts it, its realtime channel at /socket.io. Two contestants chat in two
 * browser profiles (one phone-sized) without reloading; the history loads older pages as its top scrolls
 * into view; the online dialog lists both; markup stays text; a message over 150 characters and a burst
 * that is too fast are refused with the spec's and the server's Thai messages; an admin's deletion
 * disappears for everyone; and a verdict appended as a judge would append it shows on the submission page
 * and in the lists within a second, with nothing polling while the channel is up (and by polling when it
 * is blocked). The built-in judge worker is off (OTOG_LOCAL_JUDGE_SLOTS=0): verdicts come only from here.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page, WebSocket } from 'playwright-core';
import { createDbPool, sql, type DatabasePool } from '@otog/platform/db/pool';
import { createEventStore, type EventStore } from '@otog/platform/eventstore/event-store';
import { CHAT_TOO_FAST_MESSAGE, CHAT_TOO_LONG_MESSAGE } from '@otog/schemas/common/chat';
import { otogEventRegistry } from '@otog/schemas/events';
import { solution } from './fixtures.ts';
import { join } from 'node:path';
import { accessibilityViolations, ADMIN, collectPageErrors, databaseUrlOf, screenshot, SCREENSHOTS, signIn, startWebStack, type WebStack } from './support.ts';

let stack: WebStack;
let pool: DatabasePool;
let store: EventStore;

beforeAll(async () => {
  stack = await startWebStack({ env: { OTOG_LOCAL_JUDGE_SLOTS: '0' } });
  pool = await createDbPool(databaseUrlOf(stack.dataDir), { maximumPoolSize: 2 });
  store = createEventStore(pool, otogEventRegistry);
}, 240_000);
afterAll(async () => {
  await pool?.end();
  await stack?.stop();
}, 60_000);

const suffix = String(Date.now() % 1_000_000);
const alice = { username: `chat_alice_${suffix}`, password: 'alice-pass-1', showName: `อลิซ ${suffix}` };
const bob = { username: `chat_bob_${suffix}`, password: 'bob-pass-1', showName: `บ็อบ ${suffix}` };
const ids = { alice: 0, bob: 0 };
/** Alice's access token (sign-ins are rate limited: the suite keeps its own few). */
let aliceToken = '';
/** The admin's page, signed in once for the whole file. */
let adminPage: Page | undefined;
async function signedInAdmin(): Promise<Page> {
  if (!adminPage) {
    const context = await stack.newContext(1280);
    adminPage = await context.newPage();
    await signIn(adminPage, ADMIN.username, ADMIN.password);
  }
  return adminPage;
}
/** Messages already in the history before anyone opens the chat: more than one page (25). */
const HISTORY = 40;

/** Page errors other than the statuses the browser logs for answers we expect (no avatar photo: 404). */
const unexpected = (errors: readonly string[]) => errors.filter((error) => !/status of 404\b/.test(error));

const chatButton = (page: Page) => page.locator('button.chat-button');
const panel = (page: Page) => page.getByRole('dialog', { name: 'OTOG Chat' });
const log = (page: Page) => page.getByRole('log', { name: 'ข้อความแชท' });
const row = (page: Page, text: string) => log(page).locator('.chat-row', { hasText: text });

async function openChat(page: Page): Promise<void> {
  await chatButton(page).click();
  await panel(page).waitFor();
  await page.locator('.chat-feed .chat-row').first().waitFor();
}

/** Types and sends a message, then waits until the form may send again (the server answered). */
async function send(page: Page, text: string): Promise<void> {
  const input = panel(page).getByRole('textbox', { name: 'ข้อความ' });
  await input.fill(text);
  await input.press('Enter');
  await expect.poll(() => panel(page).getByRole('button', { name: 'ส่งข้อความ' }).isEnabled(), { timeout: 5_000 }).toBe(true);
}

/** Appends `count` chat messages straight to the event log (as the gateway does): two days ago, then an hour ago. */
async function seedHistory(userId: number, count: number): Promise<void> {
  const now = Date.now();
  for (let index = 1; index <= count; index++) {
    const messageId = Number(await pool.oneFirst(sql.unsafe`SELECT nextval('chat_ids')::int`));
    // The first 30 two days ago, the rest an hour ago: two date headers.
    const at = index <= 30 ? now - 2 * 86_400_000 + index * 60_000 : now - 3_600_000 + index * 60_000;
    await store.append(`chat-${messageId}`, [
      { type: 'ChatMessagePosted', scope: 'chat:global', occurredAt: new Date(at).toISOString(), data: { messageId, userId, message: `ประวัติ ${index}` } },
    ]);
  }
}

/** What a worker reports at the end of a judging: all five tests of the one subtask accepted. */
async function appendVerdict(submissionId: number, userId: number): Promise<void> {
  const verdicts = [1, 2, 3, 4, 5].map((testcaseIndex) => ({ testcaseIndex, status: 'ACCEPTED', percent: 1, timeUsed: 3, memUsed: 1_024 }));
  await store.append(`submission-${submissionId}`, [
    {
      type: 'SubmissionJudged',
      scope: `user:${userId}`,
      data: {
        submissionId,
        judging: 1,
        status: 'accept',
        result: 'PPPPP',
        score: 100,
        timeUsed: 3,
        memUsed: 1_024,
        errmsg: null,
        subtaskResults: [{ subtaskIndex: 1, score: 5, fullScore: 5, verdicts }],
        judgedBy: 'chat-test',
        attempts: 1,
      },
    },
  ]);
}

async function submitAplusb(token: string): Promise<number> {
  const problems = (await stack.api.call('GET', '/problem', { token })).body as Array<{ id: number; name: string }>;
  const aplusb = problems.find((problem) => problem.name.startsWith('Sample: aplusb'));
  if (!aplusb) throw new Error('no a+b sample');
  const form = new FormData();
  form.set('language', 'cpp');
  form.set('sourceCode', new Blob([solution('accept.cpp')]), 'main.cpp');
  const { status, body } = await stack.api.call('POST', `/submission/problem/${aplusb.id}`, { token, form });
  if (status !== 200 && status !== 201) throw new Error(`submit: ${status} ${JSON.stringify(body)}`);
  return (body as { id: number }).id;
}

/** Requests for one submission's reads (GET /api/submission/{id} and /code) a page makes from now on. */
function countReads(page: Page, submissionId: number): { readonly count: number } {
  const counter = { count: 0 };
  const pattern = new RegExp(`/api/submission/${submissionId}(/code)?(\\?|$)`);
  page.on('request', (request) => {
    if (request.method() === 'GET' && pattern.test(new URL(request.url()).pathname)) counter.count++;
  });
  return counter;
}

describe('chat', () => {
  let aliceContext: BrowserContext;
  let bobContext: BrowserContext;
  let alicePage: Page;
  let bobPage: Page;
  /** What each contestant's page logged (uncaught exceptions, console errors). */
  const pageErrors: string[][] = [];
  /** The WebSockets Alice's page opened (the realtime channel). */
  const aliceSockets: WebSocket[] = [];

  beforeAll(async () => {
    await stack.api.register(alice.username, alice.password, alice.showName);
    await stack.api.register(bob.username, bob.password, bob.showName);
    const [a, b] = [await stack.api.login(alice.username, alice.password), await stack.api.login(bob.username, bob.password)];
    ids.alice = a.user.id;
    ids.bob = b.user.id;
    aliceToken = a.token;
    await seedHistory(ids.bob, HISTORY);
    const deadline = Date.now() + 20_000;
    while (((await stack.api.call('GET', `/chat?limit=100`, { token: a.token })).body as unknown[]).length < HISTORY) {
      if (Date.now() > deadline) throw new Error('the seeded history did not reach the read model');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    aliceContext = await stack.newContext(1280);
    bobContext = await stack.newContext(390);
    alicePage = await aliceContext.newPage();
    bobPage = await bobContext.newPage();
    for (const page of [alicePage, bobPage]) pageErrors.push(collectPageErrors(page));
    alicePage.on('websocket', (socket) => aliceSockets.push(socket));
    await signIn(alicePage, alice.username, alice.password);
    await signIn(bobPage, bob.username, bob.password);
  }, 60_000);

  afterEach(async (test) => {
    if (test.task.result?.state !== 'fail') return;
    const name = test.task.name.slice(0, 40).replace(/\W+/g, '-');
    await screenshot(alicePage, `failed-chat-alice-${name}`).catch(() => {});
    await screenshot(bobPage, `failed-chat-bob-${name}`).catch(() => {});
  });
  afterAll(async () => {
    await aliceContext?.close();
    await bobContext?.close();
  });

  it('is a round button at the bottom right for signed-in users only', async () => {
    const visitor = await stack.newContext(1280);
    const anonymous = await visitor.newPage();
    await anonymous.goto('/');
    await anonymous.getByRole('link', { name: 'เข้าสู่ระบบ' }).first().waitFor();
    expect(await chatButton(anonymous).count()).toBe(0);
    await visitor.close();

    await alicePage.goto('/problem');
    const button = chatButton(alicePage);
    await button.waitFor();
    expect(await button.getAttribute('aria-label')).toBe('เปิดแชท');
    const box = (await button.boundingBox())!;
    const viewport = alicePage.viewportSize()!;
    expect(Math.round(box.width)).toBe(48);
    expect(Math.round(box.height)).toBe(48);
    expect(viewport.width - (box.x + box.width)).toBeLessThan(32);
    expect(viewport.height - (box.y + box.height)).toBeLessThan(32);
    expect(await button.evaluate((element) => getComputedStyle(element).borderRadius)).toBe('50%');
  });

  it('opens a 320×420 panel with the newest page of the history; older pages load as the top scrolls into view', async () => {
    let pagesRead = 0;
    alicePage.on('request', (request) => {
      if (new URL(request.url()).pathname === '/api/chat') pagesRead++;
    });
    await openChat(alicePage);
    const box = (await panel(alicePage).boundingBox())!;
    expect([Math.round(box.width), Math.round(box.height)]).toEqual([320, 420]);
    // The newest page (25), scrolled to the newest message.
    await row(alicePage, `ประวัติ ${HISTORY}`).waitFor();
    expect(await log(alicePage).locator('.chat-row').count()).toBe(25);
    expect(await row(alicePage, `ประวัติ ${HISTORY}`).isVisible()).toBe(true);
    expect(pagesRead).toBe(1);
    // Up to the top: the older page comes in above and the reader stays where they were.
    const feed = alicePage.locator('.chat-feed');
    await feed.evaluate((element) => element.scrollTo({ top: 0 }));
    await expect.poll(() => log(alicePage).locator('.chat-row').count(), { timeout: 5_000 }).toBe(HISTORY);
    expect(pagesRead).toBe(2);
    await feed.evaluate((element) => element.scrollTo({ top: 0 }));
    await row(alicePage, 'ประวัติ 1').first().waitFor();
    // A Thai date header for each day, e.g. "24 พ.ย. 09:15"; one sender's run is grouped under one name.
    const headers = await log(alicePage).locator('.chat-date').allInnerTexts();
    // (Two days unless the run straddles midnight in Bangkok.)
    expect(headers.length).toBeGreaterThanOrEqual(2);
    for (const header of headers) expect(header).toMatch(/^\d{1,2} \S+ \d{2}:\d{2}$/);
    expect(await log(alicePage).getByRole('link', { name: bob.showName }).count()).toBe(headers.length);
    expect(await row(alicePage, 'ประวัติ 2').first().getAttribute('class')).toContain('chat-joined-above');
    // Hovering a message shows its full Buddhist-era time.
    expect(await row(alicePage, 'ประวัติ 2').first().locator('.chat-bubble').getAttribute('title')).toMatch(/^\d{2}\/\d{2}\/25\d\d \d{2}:\d{2}:\d{2}$/);
  });

  it('two contestants chat: the other sees each message at once, without reloading', async () => {
    await bobPage.goto('/problem');
    await openChat(bobPage);
    const bobDocument = await bobPage.evaluate(() => performance.timeOrigin);

    await send(alicePage, 'สวัสดี *บ็อบ* ลอง _เอียง_ ~ขีด~ `code` ได้ไหม');
    const seen = row(bobPage, 'สวัสดี');
    await seen.waitFor({ timeout: 5_000 });
    expect(await seen.locator('strong').innerText()).toBe('บ็อบ');
    expect(await seen.locator('em').innerText()).toBe('เอียง');
    expect(await seen.locator('s').innerText()).toBe('ขีด');
    expect(await seen.locator('code').innerText()).toBe('code');
    // Bob sees Alice's name (a link to her profile) and her message on the left.
    expect(await seen.getAttribute('class')).toContain('chat-row-other');
    expect(await seen.getByRole('link', { name: alice.showName }).getAttribute('href')).toBe(`/user/${ids.alice}`);
    // Alice's own message: on the right, in the orange bubble, and her form is empty again.
    const mine = row(alicePage, 'สวัสดี');
    await mine.waitFor();
    expect(await mine.getAttribute('class')).toContain('chat-row-own');
    expect(await mine.locator('.chat-bubble').evaluate((element) => getComputedStyle(element).backgroundColor)).toBe('rgb(194, 65, 12)');
    expect(await panel(alicePage).getByRole('textbox', { name: 'ข้อความ' }).inputValue()).toBe('');

    // A second message joins the first under one name; an emoji-only one is large, without a bubble.
    await send(alicePage, 'ข้อความที่สอง [otog.in.th] 2*3');
    await row(bobPage, 'ข้อความที่สอง').waitFor({ timeout: 5_000 });
    // A marker never closed stays as typed.
    expect(await row(bobPage, 'ข้อความที่สอง').locator('.chat-bubble').innerText()).toContain('otog.in.th 2*3');
    expect(await row(bobPage, 'ข้อความที่สอง').locator('strong').count()).toBe(0);
    expect(await row(bobPage, 'ข้อความที่สอง').getAttribute('class')).toContain('chat-joined-above');
    expect(await row(bobPage, 'ข้อความที่สอง').getByRole('link', { name: alice.showName }).count()).toBe(0);
    const link = row(bobPage, 'ข้อความที่สอง').getByRole('link', { name: 'otog.in.th' });
    expect(await link.getAttribute('href')).toBe('https://otog.in.th/');
    expect(await link.getAttribute('target')).toBe('_blank');
    await send(alicePage, '🎉🎉🎉');
    const emoji = log(bobPage).locator('.chat-row', { hasText: '🎉🎉🎉' });
    await emoji.waitFor({ timeout: 5_000 });
    expect(await emoji.locator('.chat-emoji').count()).toBe(1);
    expect(await emoji.locator('.chat-bubble').count()).toBe(0);

    // Markup in a message stays text: no element, no script, no javascript: link.
    await send(alicePage, '<img src=x onerror="window.injected=1"> <b>หนา</b> [javascript:alert(1)]');
    const injected = row(bobPage, 'onerror');
    await injected.waitFor({ timeout: 5_000 });
    expect(await injected.locator('.chat-bubble').innerText()).toContain('<img src=x onerror="window.injected=1"> <b>หนา</b> [javascript:alert(1)]');
    expect(await injected.locator('img, b, a[href^="javascript"]').count()).toBe(0);
    expect(await bobPage.evaluate(() => (window as unknown as { injected?: number }).injected)).toBeUndefined();

    expect(await bobPage.evaluate(() => performance.timeOrigin)).toBe(bobDocument);
    await screenshot(bobPage, 'chat-panel');
    await panel(bobPage).screenshot({ path: join(SCREENSHOTS, 'chat-panel-only-390.png') });
    await panel(alicePage).screenshot({ path: join(SCREENSHOTS, 'chat-panel-only-1280.png') });
    await screenshot(alicePage, 'chat-panel');
    // Narrow screens: the panel fits and the page does not scroll sideways.
    const bobBox = (await panel(bobPage).boundingBox())!;
    expect(bobBox.x).toBeGreaterThanOrEqual(0);
    expect(await bobPage.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1)).toBe(true);
    expect(await accessibilityViolations(alicePage), 'WCAG A/AA with the chat open').toEqual([]);
  });

  it('an orange dot marks what arrived while the panel was closed; opening clears it', async () => {
    await bobPage.getByRole('button', { name: 'ปิดหน้าต่างแชท' }).click();
    await panel(bobPage).waitFor({ state: 'detached' });
    expect(await chatButton(bobPage).getAttribute('data-unread')).toBeNull();
    await send(alicePage, 'มีใครอยู่ไหม');
    await expect.poll(() => chatButton(bobPage).getAttribute('data-unread'), { timeout: 5_000 }).toBe('true');
    expect(await chatButton(bobPage).getAttribute('aria-label')).toBe('เปิดแชท (มีข้อความใหม่)');
    const dot = chatButton(bobPage).locator('.chat-unread-dot');
    expect(await dot.evaluate((element) => getComputedStyle(element).backgroundColor)).toBe('rgb(249, 115, 22)');
    await screenshot(bobPage, 'chat-unread');
    await openChat(bobPage);
    expect(await chatButton(bobPage).getAttribute('data-unread')).toBeNull();
    await row(bobPage, 'มีใครอยู่ไหม').waitFor();
  });

  it('the title opens "ผู้ที่ออนไลน์ (n)" listing both, each linking to their profile; hovering it shows the names', async () => {
    const title = panel(alicePage).getByRole('button', { name: 'OTOG Chat' });
    await title.hover();
    const card = alicePage.getByRole('tooltip');
    await card.waitFor();
    await expect.poll(() => card.innerText(), { timeout: 5_000 }).toContain(bob.showName);
    expect(await card.innerText()).toContain(alice.showName);
    await screenshot(alicePage, 'chat-online-hover');

    await title.click();
    const dialog = alicePage.getByRole('dialog', { name: /^ผู้ที่ออนไลน์ \(\d+\)$/ });
    await dialog.waitFor();
    await expect.poll(() => dialog.getByRole('link').count(), { timeout: 5_000 }).toBeGreaterThanOrEqual(2);
    const count = await dialog.getByRole('link').count();
    expect(await dialog.getByRole('heading').innerText()).toBe(`ผู้ที่ออนไลน์ (${count})`);
    expect(await dialog.getByRole('link', { name: alice.showName }).getAttribute('href')).toBe(`/user/${ids.alice}`);
    expect(await dialog.getByRole('link', { name: bob.showName }).getAttribute('href')).toBe(`/user/${ids.bob}`);
    await screenshot(alicePage, 'chat-online-dialog');
    expect(await accessibilityViolations(alicePage), 'WCAG A/AA with the online dialog').toEqual([]);
    await dialog.getByRole('link', { name: bob.showName }).click();
    await alicePage.waitForURL(`**/user/${ids.bob}`);
    await dialog.waitFor({ state: 'detached' });
    // The panel stays open across pages.
    expect(await panel(alicePage).isVisible()).toBe(true);
  });

  it(`refuses a 151-character message with '${CHAT_TOO_LONG_MESSAGE}', and shows the server's refusal of a burst`, async () => {
    let sentFrames = 0;
    bobPage.on('websocket', (socket) => socket.on('framesent', (frame) => void (String(frame.payload).includes('chat-server') && sentFrames++)));
    // (Listening starts with the next socket: reload so frames are seen.)
    await bobPage.reload();
    await openChat(bobPage);
    await send(bobPage, 'ก'.repeat(151));
    const alert = panel(bobPage).getByRole('alert');
    await alert.waitFor();
    expect(await alert.innerText()).toBe(CHAT_TOO_LONG_MESSAGE);
    expect(await panel(bobPage).getByRole('textbox', { name: 'ข้อความ' }).getAttribute('aria-invalid')).toBe('true');
    await screenshot(bobPage, 'chat-too-long');
    // Blank is refused without a word; nothing left the browser.
    await send(bobPage, '    ');
    expect(sentFrames).toBe(0);

    // 150 after trimming is fine.
    await send(bobPage, `  ${'ข'.repeat(150)}  `);
    await row(alicePage, 'ข'.repeat(150)).waitFor({ timeout: 5_000 });
    expect(await panel(bobPage).getByRole('alert').count()).toBe(0);
    // The server allows 5 messages in 10 s: the sixth is refused with its reason, and the text stays.
    for (let index = 2; index <= 6; index++) await send(bobPage, `รัว ${index}`);
    await expect.poll(() => panel(bobPage).getByRole('alert').innerText().catch(() => ''), { timeout: 5_000 }).toBe(CHAT_TOO_FAST_MESSAGE);
    expect(await panel(bobPage).getByRole('textbox', { name: 'ข้อความ' }).inputValue()).toBe('รัว 6');
    expect(sentFrames).toBe(6);
  });

  it('an admin deletes a message and it disappears for everyone', async () => {
    const adminPage = await signedInAdmin();
    await openChat(adminPage);
    const target = row(adminPage, 'มีใครอยู่ไหม');
    await target.waitFor();
    // Contestants have no delete action.
    expect(await log(bobPage).getByRole('button', { name: /^ลบข้อความ/ }).count()).toBe(0);
    await target.hover();
    await target.getByRole('button', { name: `ลบข้อความของ ${alice.showName}` }).click();
    const confirm = adminPage.getByRole('dialog', { name: 'ลบข้อความ' });
    await confirm.waitFor();
    await screenshot(adminPage, 'chat-delete-confirm');
    await confirm.getByRole('button', { name: 'ลบ', exact: true }).click();
    await target.waitFor({ state: 'detached' });
    await row(bobPage, 'มีใครอยู่ไหม').waitFor({ state: 'detached', timeout: 5_000 });
    await row(alicePage, 'มีใครอยู่ไหม').waitFor({ state: 'detached', timeout: 5_000 });
    // Gone from the history too.
    await bobPage.reload();
    await openChat(bobPage);
    await row(bobPage, 'ข'.repeat(150)).waitFor();
    expect(await row(bobPage, 'มีใครอยู่ไหม').count()).toBe(0);
  });

  it('signing out closes the chat and its socket and forgets them; signing in opens a new one', async () => {
    // (Playwright does not always see a socket close when its document goes away: count this document's.)
    aliceSockets.length = 0;
    await alicePage.goto('/problem');
    const open = () => aliceSockets.filter((socket) => !socket.isClosed() && socket.url().includes('/socket.io/'));
    await expect.poll(() => open().length, { timeout: 5_000 }).toBe(1);
    await alicePage.getByRole('button', { name: /เมนูผู้ใช้/ }).click();
    await alicePage.getByRole('menuitem', { name: 'ออกจากระบบ' }).click();
    await alicePage.waitForURL('**/login');
    // The URL changes before React commits the signed-out page: wait for that page, then look.
    await alicePage.getByRole('heading', { name: 'เข้าสู่ระบบ' }).waitFor();
    expect(await chatButton(alicePage).count()).toBe(0);
    await expect.poll(() => open().length, { timeout: 5_000 }).toBe(0);
    await signIn(alicePage, alice.username, alice.password);
    await chatButton(alicePage).waitFor();
    await expect.poll(() => open().length, { timeout: 5_000 }).toBe(1);
    expect(await chatButton(alicePage).getAttribute('data-unread')).toBeNull();
    expect(await panel(alicePage).count()).toBe(0);
  });

  it('a new access token reconnects the socket with it', async () => {
    const open = () => aliceSockets.filter((socket) => !socket.isClosed() && socket.url().includes('/socket.io/'));
    await expect.poll(() => open().length, { timeout: 5_000 }).toBe(1);
    const [before] = open();
    const tokenBefore = await alicePage.evaluate(() => document.cookie);
    // A refresh as any API call would make it (the server sets the new cookie).
    await alicePage.evaluate(async () => {
      const token = decodeURIComponent(/(?:^|; )accessToken=([^;]+)/.exec(document.cookie)?.[1] ?? '');
      await fetch('/api/auth/refresh/token', { credentials: 'include', headers: { authorization: `Bearer ${token}` } });
    });
    expect(await alicePage.evaluate(() => document.cookie)).not.toBe(tokenBefore);
    await expect.poll(() => before!.isClosed(), { timeout: 5_000 }).toBe(true);
    await expect.poll(() => open().length, { timeout: 5_000 }).toBe(1);
    // Still live on the new socket: a message arrives (from the admin: Bob used up his burst a moment ago).
    await openChat(alicePage);
    const admin = await signedInAdmin();
    if (!(await panel(admin).isVisible())) await openChat(admin);
    await send(admin, 'ยังได้ยินไหม');
    await row(alicePage, 'ยังได้ยินไหม').waitFor({ timeout: 5_000 });
    expect(pageErrors.flatMap((collected) => unexpected(collected))).toEqual([]);
  });
});

describe('live verdicts', () => {
  let context: BrowserContext;
  let page: Page;
  let adminPage: Page;
  let token: string;

  beforeAll(async () => {
    token = aliceToken;
    context = await stack.newContext(1280);
    page = await context.newPage();
    await signIn(page, alice.username, alice.password);
    adminPage = await signedInAdmin();
  }, 60_000);
  afterAll(async () => {
    await context?.close();
    await adminPage?.context().close();
  });
  afterEach(async (test) => {
    if (test.task.result?.state === 'fail') await screenshot(page, `failed-verdict-${test.task.name.slice(0, 30).replace(/\W+/g, '-')}`).catch(() => {});
  });

  it('the submission page shows the verdict within 1 s of the judge finishing, with nothing polling meanwhile', async () => {
    const submissionId = await submitAplusb(token);
    const reads = countReads(page, submissionId);
    await page.goto(`/submission/${submissionId}`);
    await page.getByText('กำลังรอตรวจ...').waitFor();
    await page.waitForLoadState('networkidle');
    // Polling would have asked again after 1 s and after 3 s: the open channel makes it unnecessary.
    const before = reads.count;
    await page.waitForTimeout(3_500);
    expect(reads.count - before, 'polls while the realtime channel is connected').toBe(0);

    await appendVerdict(submissionId, ids.alice);
    const appended = performance.now();
    await page.locator('.result-string').filter({ hasText: 'PPPPP' }).waitFor({ timeout: 5_000 });
    const elapsed = performance.now() - appended;
    console.info(`submission page: the verdict showed ${Math.round(elapsed)} ms after the append`);
    expect(elapsed, `verdict shown ${Math.round(elapsed)} ms after the append`).toBeLessThan(1_000);
    expect(await page.getByText('ผ่านแล้ว').first().isVisible()).toBe(true);
    await screenshot(page, 'submission-live-verdict');
  });

  it("the lists follow too: the owner's own list and an admin's list of everyone (a watch)", async () => {
    const submissionId = await submitAplusb(token);
    await page.goto('/submission?all=false');
    await adminPage.goto('/submission?all=true');
    const rowOf = (where: Page) => where.locator('main tbody tr', { has: where.getByRole('button', { name: `ดูรายละเอียดผลตรวจ #${submissionId}`, exact: true }) });
    const mine = rowOf(page);
    const theirs = rowOf(adminPage);
    await expect.poll(() => mine.innerText(), { timeout: 15_000 }).toContain('- / 100');
    await expect.poll(() => theirs.innerText(), { timeout: 15_000 }).toContain('- / 100');
    await page.waitForLoadState('networkidle');
    await adminPage.waitForLoadState('networkidle');
    const ownReads = countReads(page, submissionId);
    const adminReads = countReads(adminPage, submissionId);
    await page.waitForTimeout(3_500);
    expect([ownReads.count, adminReads.count], 'polls while the realtime channel is connected').toEqual([0, 0]);

    await appendVerdict(submissionId, ids.alice);
    const appended = performance.now();
    await Promise.all([
      expect.poll(() => mine.innerText(), { timeout: 5_000, interval: 20 }).toContain('100 / 100'),
      expect.poll(() => theirs.innerText(), { timeout: 5_000, interval: 20 }).toContain('100 / 100'),
    ]);
    const elapsed = performance.now() - appended;
    console.info(`lists: both verdicts showed ${Math.round(elapsed)} ms after the append`);
    expect(elapsed, `verdicts shown ${Math.round(elapsed)} ms after the append`).toBeLessThan(1_000);
  });

  it('with the realtime channel blocked, a pending verdict still arrives by polling', async () => {
    const blocked = await stack.newContext(1280);
    await blocked.route('**/socket.io/**', (route) => route.abort());
    await blocked.routeWebSocket(/\/socket\.io\//, (socket) => socket.close());
    const other = await blocked.newPage();
    await signIn(other, alice.username, alice.password);
    const submissionId = await submitAplusb(token);
    const reads = countReads(other, submissionId);
    await other.goto(`/submission/${submissionId}`);
    await other.getByText('กำลังรอตรวจ...').waitFor();
    await expect.poll(() => reads.count, { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
    await appendVerdict(submissionId, ids.alice);
    await other.locator('.result-string').filter({ hasText: 'PPPPP' }).waitFor({ timeout: 20_000 });
    await blocked.close();
  });
});
