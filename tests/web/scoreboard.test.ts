/**
 * The contest scoreboard in real browsers (Debian Chromium through playwright-core) against OTOG started as
 * `npm start` starts it. Verdicts are appended as a judge would append them (the built-in judge worker is
 * off), so the test decides when each contestant's score changes: a third browser sees the board update
 * live with its scroll position and table kept, the score-history dialog shows totals and ranks, the prizes
 * name their winners, the replay shows an earlier moment's ranks, an AFTER_CONTEST board explains itself
 * to a contestant, and a frozen board shows pending cells until the admin reveals it. Screenshots at 1280
 * and 390 px in both colour modes; axe-core clean at 1280 in both.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { createDbPool, type DatabasePool } from '@otog/platform/db/pool';
import { createEventStore, type EventStore } from '@otog/platform/eventstore/event-store';
import { otogEventRegistry } from '@otog/schemas/events';
import { solution } from './fixtures.ts';
import { accessibilityViolations, ADMIN, collectPageErrors, databaseUrlOf, englishWords, screenshot, signIn, startWebStack, type WebStack } from './support.ts';

let stack: WebStack;
let pool: DatabasePool;
let store: EventStore;
let adminToken = '';

const suffix = String(Date.now() % 1_000_000);
const person = (name: string, showName: string) => ({ username: `sb_${name}_${suffix}`, password: `${name}-pass-123`, showName: `${showName} ${suffix}`, id: 0, token: '' });
const alice = person('alice', 'อลิซ');
const bob = person('bob', 'บ็อบ');
const carol = person('carol', 'แคโรล');
/** Contestants with no submissions: enough rows for the board to scroll. */
const FILLERS = 22;
const fillerIds: number[] = [];

/** The contest's length: the replay slider moves in 1/60 of it, so 6 minutes gives 6 s steps. */
const DURATION_MS = 6 * 60_000;
const STEP_MS = DURATION_MS / 60;
const problems = { aplusb: { id: 0, name: '' }, five: { id: 0, name: '' } };
const contests = { main: { id: 0, start: 0 }, after: 0, frozen: 0 };
const moments = { aliceJudged: 0, bobJudged: 0 };

async function api<T>(method: string, path: string, options: { token?: string; json?: unknown; form?: FormData } = {}): Promise<T> {
  const { status, body } = await stack.api.call(method, path, options);
  if (status >= 300) throw new Error(`${method} ${path}: ${status} ${JSON.stringify(body)}`);
  return body as T;
}

async function createContest(name: string, policy: string, options: { freezeAt?: string } = {}): Promise<{ id: number; start: number }> {
  const start = Date.now() - 2_000;
  const contest = await api<{ id: number }>('POST', '/contest', {
    token: adminToken,
    json: {
      name,
      mode: 'unrated',
      gradingMode: 'classic',
      scoreboardPolicy: policy,
      timeStart: new Date(start).toISOString(),
      timeEnd: new Date(start + DURATION_MS).toISOString(),
      announce: null,
      ...(options.freezeAt ? { freezeAt: options.freezeAt } : {}),
    },
  });
  await api('PUT', `/contest/${contest.id}/problems`, { token: adminToken, json: [{ problemId: problems.aplusb.id }, { problemId: problems.five.id }] });
  for (const userId of [alice.id, bob.id, ...fillerIds]) await api('POST', `/contest/${contest.id}/signup`, { token: adminToken, json: { userId } });
  return { id: contest.id, start };
}

async function submit(user: { token: string }, problemId: number, contestId: number): Promise<number> {
  const form = new FormData();
  form.set('language', 'cpp');
  form.set('sourceCode', new Blob([solution('accept.cpp')]), 'main.cpp');
  return (await api<{ id: number }>('POST', `/submission/problem/${problemId}?contestId=${contestId}`, { token: user.token, form })).id;
}

/** What a judge appends when it finishes: `score` of 100 in one subtask of 5 tests. */
async function judge(submissionId: number, contestId: number, score: number): Promise<void> {
  const passed = Math.round(score / 20);
  const verdicts = [1, 2, 3, 4, 5].map((testcaseIndex) => ({ testcaseIndex, status: testcaseIndex <= passed ? 'ACCEPTED' : 'REJECTED', percent: testcaseIndex <= passed ? 1 : 0, timeUsed: 3, memUsed: 1_024 }));
  await store.append(`submission-${submissionId}`, [
    {
      type: 'SubmissionJudged',
      scope: `contest:${contestId}`,
      data: {
        submissionId,
        judging: 1,
        status: score === 100 ? 'accept' : 'reject',
        result: verdicts.map((verdict) => (verdict.status === 'ACCEPTED' ? 'P' : '-')).join(''),
        score,
        timeUsed: 3,
        memUsed: 1_024,
        errmsg: null,
        subtaskResults: [
          { subtaskIndex: 1, score: Math.min(score, 60), fullScore: 60, verdicts: verdicts.slice(0, 3) },
          { subtaskIndex: 2, score: Math.max(0, score - 60), fullScore: 40, verdicts: verdicts.slice(3) },
        ],
        judgedBy: 'scoreboard-test',
        attempts: 1,
      },
    },
  ]);
}

async function solve(user: { token: string }, contestId: number, problemId: number, score: number): Promise<void> {
  await judge(await submit(user, problemId, contestId), contestId, score);
}

/** Under load the projections may take a while to fold a verdict: wait up to 30 s for what the page shows. */
const poll = <T>(read: () => Promise<T>) => expect.poll(read, { timeout: 30_000, interval: 250 });

const boardRow = (page: Page, userId: number) => page.locator(`tr.sb-row[data-user-id="${userId}"]`);
const board = (page: Page, contestId: number) => page.goto(`/contest/${contestId}/scoreboard`);

async function expectNoSidewaysScroll(page: Page, where: string) {
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1), `${where} overflows`).toBe(true);
}

async function setTheme(page: Page, theme: 'light' | 'dark') {
  await page.evaluate((value) => localStorage.setItem('theme', value), theme);
  await page.reload();
}

/** Names that are data, not interface text. */
const contentNames = () => [alice.showName, bob.showName, carol.showName, problems.aplusb.name, problems.five.name, 'Sample', 'aplusb', 'five-subtask', 'First Blood', 'One Man Solve', `scoreboard ${suffix}`];

beforeAll(async () => {
  stack = await startWebStack({ env: { OTOG_LOCAL_JUDGE_SLOTS: '0' } });
  pool = await createDbPool(databaseUrlOf(stack.dataDir), { maximumPoolSize: 2 });
  store = createEventStore(pool, otogEventRegistry);
  adminToken = (await stack.api.login(ADMIN.username, ADMIN.password)).token;
  const list = await api<Array<{ id: number; name: string }>>('GET', '/problem', { token: adminToken });
  for (const [key, prefix] of [['aplusb', 'Sample: aplusb'], ['five', 'Sample: five-subtask']] as const) {
    const found = list.find((problem) => problem.name === prefix);
    if (!found) throw new Error(`no problem ${prefix}`);
    problems[key] = found;
  }
  for (const user of [alice, bob, carol]) {
    await stack.api.register(user.username, user.password, user.showName);
    const session = await stack.api.login(user.username, user.password);
    user.id = session.user.id;
    user.token = session.token;
  }
  for (let index = 0; index < FILLERS; index++) {
    const username = `sb_f${index}_${suffix}`;
    await stack.api.register(username, 'filler-pass-123', `ผู้เข้าแข่งขัน ${index + 1}`);
    fillerIds.push((await stack.api.login(username, 'filler-pass-123')).user.id);
  }
  contests.main = await createContest(`scoreboard ${suffix}`, 'DURING_CONTEST');
}, 300_000);
afterAll(async () => {
  await pool?.end();
  await stack?.stop();
}, 60_000);

describe('scoreboard', () => {
  let viewer: Page;
  let admin: Page;
  let errors: string[];

  beforeAll(async () => {
    viewer = await (await stack.newContext(1280)).newPage();
    errors = collectPageErrors(viewer);
    await signIn(viewer, carol.username, carol.password);
    admin = await (await stack.newContext(1280)).newPage();
    await signIn(admin, ADMIN.username, ADMIN.password);
  }, 120_000);

  it('a third browser sees a new score live, keeping its table and scroll position', async () => {
    await solve(alice, contests.main.id, problems.aplusb.id, 100);
    await solve(alice, contests.main.id, problems.five.id, 40);
    moments.aliceJudged = Date.now();

    // The board is read whole once; what changes later comes as changes.
    const wholeReads: string[] = [];
    const changedUsers: number[][] = [];
    viewer.on('response', (response) => {
      const path = new URL(response.url()).pathname;
      if (path === `/api/contest/${contests.main.id}/scoreboard/columns`) wholeReads.push(path);
      if (path === `/api/contest/${contests.main.id}/scoreboard/changes`) {
        void response.json().then((answer: { changes: { changed: { userId: number[] } } | null }) => {
          if (answer.changes) changedUsers.push(answer.changes.changed.userId);
        });
      }
    });
    await board(viewer, contests.main.id);
    await viewer.getByRole('heading', { name: 'ตารางคะแนน' }).waitFor();
    await viewer.getByRole('link', { name: `scoreboard ${suffix}` }).waitFor();
    await poll(() => boardRow(viewer, alice.id).getAttribute('data-rank')).toBe('1');
    await expect(boardRow(viewer, alice.id).locator('.sb-total').innerText()).resolves.toBe('140');
    // Everyone without a score shares rank 2.
    await expect(boardRow(viewer, bob.id).getAttribute('data-rank')).resolves.toBe('2');
    expect(await viewer.locator('.sb-table').getAttribute('aria-rowcount')).toBe(String(2 + FILLERS + 1));
    // Alice's cells: full (with first blood) and partial.
    await poll(() => boardRow(viewer, alice.id).locator('.sb-cell-full').getByRole('img', { name: 'First Blood' }).count()).toBe(1);
    await expect(boardRow(viewer, alice.id).locator('.sb-cell-partial').innerText()).resolves.toContain('40');

    // Scroll the board a little and mark the page and the table: an update must keep all three.
    await viewer.evaluate(() => {
      const box = document.querySelector('.sb-scroll')!;
      box.scrollTop = 120;
      (window as unknown as { marker: unknown }).marker = document.querySelector('.sb-table');
    });
    // The replay needs Bob's accept a few slider steps after Alice's.
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, moments.aliceJudged + 3 * STEP_MS - Date.now())));
    await solve(bob, contests.main.id, problems.aplusb.id, 100);
    await solve(bob, contests.main.id, problems.five.id, 100);
    moments.bobJudged = Date.now();

    await poll(() => boardRow(viewer, bob.id).getAttribute('data-rank')).toBe('1');
    await expect(boardRow(viewer, bob.id).locator('.sb-total').innerText()).resolves.toBe('200');
    await expect(boardRow(viewer, alice.id).getAttribute('data-rank')).resolves.toBe('2');
    const kept = await viewer.evaluate(() => ({
      sameTable: (window as unknown as { marker: unknown }).marker === document.querySelector('.sb-table'),
      scrollTop: document.querySelector('.sb-scroll')!.scrollTop,
    }));
    expect(kept).toEqual({ sameTable: true, scrollTop: 120 });
    expect(wholeReads).toHaveLength(1);
    await poll(async () => changedUsers.flat().includes(bob.id)).toBe(true);
  }, 120_000);

  it('the caller can jump to their own row, which is highlighted', async () => {
    const contestant = await (await stack.newContext(1280)).newPage();
    await signIn(contestant, alice.username, alice.password);
    await board(contestant, contests.main.id);
    await contestant.getByRole('button', { name: 'ไปที่อันดับของฉัน' }).click();
    await expect(boardRow(contestant, alice.id).getAttribute('class')).resolves.toContain('sb-row-me');
    // Compact mode hides the problem columns.
    await contestant.getByRole('button', { name: 'ซ่อนรายละเอียด' }).click();
    await expect(contestant.locator('.sb-th.sb-col-problem').count()).resolves.toBe(0);
    await contestant.context().close();
  }, 60_000);

  it('a board opened by its URL is asked for once, from the page head, before the app calls the API', async () => {
    const contestant = await (await stack.newContext(1280)).newPage();
    await signIn(contestant, alice.username, alice.password);
    // Away from the page signing in landed on, so that nothing it still asks for is counted below.
    await contestant.goto('about:blank');
    // No realtime here: joining the contest room refetches the board (what changed before the join), and
    // the polling that replaces it waits 15 s, so every read of the board below is the page's own first one.
    await contestant.routeWebSocket(/\/socket\.io\//, () => {});
    await contestant.route('**/socket.io/**', (route) => route.abort());
    const apiRequests: string[] = [];
    contestant.on('request', (request) => {
      const path = new URL(request.url()).pathname;
      if (request.resourceType() === 'fetch' && path.startsWith('/api/')) apiRequests.push(path);
    });
    await board(contestant, contests.main.id);
    await poll(() => boardRow(contestant, alice.id).locator('.sb-total').innerText()).toBe('140');
    const columns = `/api/contest/${contests.main.id}/scoreboard/columns`;
    expect(apiRequests[0]).toBe(columns);
    // The app's first read of the board took that answer instead of asking again.
    expect(apiRequests.filter((path) => path === columns)).toHaveLength(1);
    await contestant.context().close();
  }, 60_000);

  it('the board read again when the contest room is joined asks what changed since its ETag, and is not read whole again', async () => {
    const contestant = await (await stack.newContext(1280)).newPage();
    await signIn(contestant, alice.username, alice.password);
    await contestant.goto('about:blank');
    const columns = `/api/contest/${contests.main.id}/scoreboard/columns`;
    const changes = `/api/contest/${contests.main.id}/scoreboard/changes`;
    const wholeReads: Array<string | undefined> = [];
    const changeReads: Array<{ since: string | null; answer: Promise<{ etag: string; changes: unknown }> }> = [];
    contestant.on('response', (response) => {
      const url = new URL(response.url());
      if (url.pathname === columns) wholeReads.push(response.headers().etag);
      if (url.pathname === changes) changeReads.push({ since: url.searchParams.get('since'), answer: response.json() });
    });
    await board(contestant, contests.main.id);
    await poll(() => boardRow(contestant, alice.id).locator('.sb-total').innerText()).toBe('140');
    // The read made when the room is joined names the ETag of the board the page has; nothing changed since.
    await poll(async () => changeReads.length).toBeGreaterThan(0);
    expect(wholeReads).toHaveLength(1);
    expect(changeReads[0]!.since).toBe(wholeReads[0]);
    expect(await changeReads[0]!.answer).toEqual({ etag: wholeReads[0], changes: null });
    await expect(boardRow(contestant, alice.id).locator('.sb-total').innerText()).resolves.toBe('140');
    await contestant.context().close();
  }, 60_000);

  it('the score-history dialog shows the totals, the ranks, the chart and the submissions', async () => {
    await board(viewer, contests.main.id);
    await boardRow(viewer, alice.id).locator('.sb-total').click();
    const dialog = viewer.getByRole('dialog', { name: `รายละเอียดคะแนนของ ${alice.showName}` });
    await dialog.waitFor();
    const cells = async (key: string) => dialog.locator(`tr[data-problem="${key}"] td`).allInnerTexts();
    expect(await cells('total')).toEqual(['140', '2']);
    expect(await cells(String(problems.aplusb.id))).toEqual(['100', '1']);
    expect(await cells(String(problems.five.id))).toEqual(['40', '2']);
    await dialog.getByText('กราฟแสดงคะแนนตามเวลา').waitFor();
    await dialog.locator('svg.sb-chart path.sb-chart-line').waitFor();
    // Ticks at ¼, ½, ¾ and the end of the 6-minute contest.
    expect(await dialog.locator('svg.sb-chart text').allTextContents()).toEqual(expect.arrayContaining(['0:01:30', '0:03:00', '0:04:30', '0:06:00']));
    await dialog.getByLabel('แสดงคะแนนของ').selectOption(String(problems.five.id));
    await dialog.getByRole('columnheader', { name: 'กลุ่มที่ 1 (60)' }).waitFor();
    await dialog.getByRole('columnheader', { name: 'กลุ่มที่ 2 (40)' }).waitFor();
    expect(await dialog.locator('.sb-history-table tbody tr td').allInnerTexts()).toEqual([expect.stringMatching(/^0:00:\d\d$/), '40', '40', '0']);
    await dialog.getByRole('button', { name: 'ปิด' }).click();
    await dialog.waitFor({ state: 'detached' });
  }, 60_000);

  it('the prizes name the winners', async () => {
    await board(viewer, contests.main.id);
    const prizes = viewer.getByRole('region', { name: 'รางวัล' });
    const winner = (kind: string, problemId: number) => prizes.locator(`tr[data-prize="${kind}"] td[data-problem-id="${problemId}"]`).innerText();
    await poll(() => winner('firstBlood', problems.aplusb.id)).toBe(alice.showName);
    expect(await winner('firstBlood', problems.five.id)).toBe(bob.showName);
    expect(await winner('oneManSolve', problems.aplusb.id)).toBe('-');
    expect(await winner('oneManSolve', problems.five.id)).toBe(bob.showName);
    await prizes.getByText('ผู้ที่ผ่านข้อนี้เป็นคนแรก').waitFor();
    await prizes.getByText('ผู้เดียวที่ผ่านข้อนี้').waitFor();
  });

  it('screens at 1280 and 390 px, light and dark: Thai, no sideways scroll, axe-clean at 1280', async () => {
    const phone = await (await stack.newContext(390)).newPage();
    await signIn(phone, carol.username, carol.password);
    for (const page of [viewer, phone]) {
      const width = page.viewportSize()!.width;
      for (const theme of ['light', 'dark'] as const) {
        await board(page, contests.main.id);
        await setTheme(page, theme);
        await boardRow(page, bob.id).waitFor();
        await page.waitForLoadState('networkidle');
        await screenshot(page, theme === 'light' ? 'scoreboard' : 'scoreboard-dark');
        await expectNoSidewaysScroll(page, `scoreboard at ${width} px ${theme}`);
        expect(await englishWords(page, contentNames()), `English on the scoreboard at ${width}`).toEqual([]);
        if (width === 1280) expect(await accessibilityViolations(page), `WCAG A/AA on the scoreboard (${theme})`).toEqual([]);
        // The score-history dialog over it.
        await boardRow(page, alice.id).locator('.sb-total').click();
        const dialog = page.getByRole('dialog', { name: `รายละเอียดคะแนนของ ${alice.showName}` });
        await dialog.locator('svg.sb-chart path.sb-chart-line').waitFor();
        await screenshot(page, theme === 'light' ? 'scoreboard-dialog' : 'scoreboard-dialog-dark');
        await expectNoSidewaysScroll(page, `score-history dialog at ${width} px ${theme}`);
        if (width === 1280) expect(await accessibilityViolations(page), `WCAG A/AA on the score-history dialog (${theme})`).toEqual([]);
        await page.keyboard.press('Escape');
        await dialog.waitFor({ state: 'detached' });
      }
      await setTheme(page, 'light');
    }
    // At 390 px the rank and name stay in view while the board scrolls sideways inside its box.
    const box = phone.locator('.sb-scroll');
    await box.evaluate((element) => (element.scrollLeft = 400));
    const nameLeft = await boardRow(phone, bob.id).locator('.sb-col-name').evaluate((cell) => cell.getBoundingClientRect().left);
    const boxLeft = await box.evaluate((element) => element.getBoundingClientRect().left);
    expect(nameLeft - boxLeft).toBeLessThan(80);
    await phone.context().close();
    expect(errors.filter((error) => !/status of 404\b/.test(error))).toEqual([]);
  }, 180_000);

  it('the replay shows the ranks of a moment before the second contestant was accepted', async () => {
    const between = (moments.aliceJudged + moments.bobJudged) / 2;
    const step = Math.round((between - contests.main.start) / STEP_MS);
    const moment = contests.main.start + step * STEP_MS;
    expect(moment > moments.aliceJudged && moment < moments.bobJudged, 'a slider step between the two accepts').toBe(true);
    for (const [page, width] of [[admin, 1280], [await (await stack.newContext(390)).newPage(), 390]] as const) {
      if (width === 390) await signIn(page, ADMIN.username, ADMIN.password);
      await board(page, contests.main.id);
      await boardRow(page, bob.id).waitFor();
      await page.getByRole('button', { name: 'ย้อนดูกระดาน' }).click();
      const slider = page.getByRole('slider');
      await slider.focus();
      await page.keyboard.press('Home');
      for (let index = 0; index < step; index++) await page.keyboard.press('ArrowRight');
      await poll(() => boardRow(page, alice.id).getAttribute('data-rank')).toBe('1');
      await poll(() => boardRow(page, bob.id).locator('.sb-total').innerText()).toBe('0');
      expect(await boardRow(page, alice.id).locator('.sb-total').innerText()).toBe('140');
      await page.getByText(`กระดาน ณ เวลา`).waitFor();
      await screenshot(page, 'scoreboard-replay');
      await expectNoSidewaysScroll(page, `replay at ${width} px`);
      await setTheme(page, 'dark');
      await page.getByRole('button', { name: 'ย้อนดูกระดาน' }).click();
      await page.getByRole('slider').waitFor();
      await screenshot(page, 'scoreboard-replay-dark');
      await setTheme(page, 'light');
      // Back to now: Bob leads again.
      await page.getByRole('button', { name: 'ย้อนดูกระดาน' }).click();
      await page.getByRole('button', { name: 'กลับสู่กระดานปัจจุบัน' }).click();
      await poll(() => boardRow(page, bob.id).getAttribute('data-rank')).toBe('1');
      if (width === 390) await page.context().close();
    }
  }, 120_000);

  it('an AFTER_CONTEST board explains itself to a contestant while the contest runs', async () => {
    contests.after = (await createContest(`after ${suffix}`, 'AFTER_CONTEST')).id;
    await board(viewer, contests.after);
    await viewer.getByText('ตารางคะแนนจะแสดงหลังการแข่งขันจบ').waitFor();
    expect(await viewer.locator('.sb-table').count()).toBe(0);
    // The admin sees it all the same.
    await board(admin, contests.after);
    await admin.locator('.sb-table').waitFor();
  });

  it('a frozen board shows pending cells to a contestant until the admin reveals it', async () => {
    const freezeAt = Date.now() + 3_000;
    const frozen = await createContest(`frozen ${suffix}`, 'DURING_CONTEST', { freezeAt: new Date(freezeAt).toISOString() });
    contests.frozen = frozen.id;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, freezeAt - Date.now() + 500)));
    await solve(bob, frozen.id, problems.aplusb.id, 100);

    await board(viewer, frozen.id);
    await viewer.getByText(/^กระดานคะแนนถูกแช่แข็งตั้งแต่ /).waitFor();
    const cell = boardRow(viewer, bob.id).locator('.sb-cell').first();
    await poll(() => cell.innerText()).toContain('? +1');
    await expect(boardRow(viewer, bob.id).locator('.sb-total').innerText()).resolves.toBe('0');
    await screenshot(viewer, 'scoreboard-frozen');

    await board(admin, frozen.id);
    await boardRow(admin, bob.id).waitFor();
    expect(await boardRow(admin, bob.id).locator('.sb-total').innerText()).toBe('100');
    await admin.getByRole('button', { name: 'เปิดเผยกระดานคะแนน' }).click();
    const confirm = admin.getByRole('dialog', { name: 'ยืนยันการเปิดเผยกระดานคะแนน' });
    await confirm.getByRole('button', { name: 'เปิดเผย', exact: true }).click();
    await admin.getByText('เปิดเผยกระดานคะแนนแล้ว').waitFor();

    await board(viewer, frozen.id);
    await poll(() => boardRow(viewer, bob.id).locator('.sb-total').innerText()).toBe('100');
    expect(await viewer.getByText(/^กระดานคะแนนถูกแช่แข็งตั้งแต่ /).count()).toBe(0);
  }, 60_000);
});
