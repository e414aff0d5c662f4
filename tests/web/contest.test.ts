/**
 * The contest pages in a real browser against OTOG started as `npm start` starts it: no contest, several
 * upcoming ones with countdowns, a contest that starts while it is on screen, a contestant solving a contest
 * problem through the editor (the sidebar score turning full), the announcements with their line breaks,
 * the history with Buddhist-era dates a page at a time, the scoreboard link per policy, an admin editing the
 * contest's announce text and reading its submissions; screenshots of every page at 1280 and 390 px in both
 * themes, axe-core clean at 1280.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { solution } from './fixtures.ts';
import { ADMIN, buddhistYear, collectPageErrors, englishWords, screenshot, signIn, startWebStack, viewport, type WebStack } from './support.ts';
import { announce, createContest, POLL_TIMEOUT, problemNamed, visitInBothThemes, type ProblemRow } from './contest-support.ts';

let stack: WebStack;
beforeAll(async () => {
  stack = await startWebStack();
}, 240_000);
afterAll(async () => stack?.stop(), 60_000);

const suffix = String(Date.now() % 1_000_000);
const contestant = { username: `contestant_${suffix}`, password: 'contest-pass-1', showName: `ผู้แข่ง ${suffix}` };
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** The running contest starts this long after it is made: long enough to see its countdown first. */
const START_DELAY = 25_000;
const VERDICT_TIMEOUT = 90_000;

const names = {
  running: `แข่งสด ${suffix}`,
  upcoming: `แข่งพรุ่งนี้ ${suffix}`,
  afterOnly: `แข่งจบแล้ว ${suffix}`,
  hidden: `แข่งปิดตาราง ${suffix}`,
};
const ANNOUNCE = 'ยินดีต้อนรับสู่การแข่งขัน\nขอให้ทุกคนโชคดี';
const FIRST_NEWS = 'ประกาศแรก';
const SECOND_NEWS = 'แก้โจทย์ข้อแรก\nบรรทัดที่สองของประกาศ';

const ids = { running: 0, upcoming: 0, afterOnly: 0, hidden: 0 };
let adminToken = '';
let aplusb: ProblemRow;
let second: ProblemRow;

let context: BrowserContext;
let page: Page;
let errors: string[];

/** Page errors other than the statuses the browser logs for answers we expect (no avatar: 404; the detail before the start: 403). */
const unexpected = (list: readonly string[]) => list.filter((error) => !/status of (401|403|404)\b/.test(error));

async function expectThai(where: string) {
  const content = [...Object.values(names), aplusb.name, second.name, contestant.username, contestant.showName, ADMIN.username];
  expect(await englishWords(page, content), `English interface text on ${where}`).toEqual([]);
}

const sidebar = () => page.locator('aside.contest-sidebar');
const scoreboardLinks = () => page.getByRole('link', { name: /ตารางคะแนน|สรุปผลการแข่งขัน/ });

beforeAll(async () => {
  adminToken = (await stack.api.login(ADMIN.username, ADMIN.password)).token;
  await stack.api.register(contestant.username, contestant.password, contestant.showName);
  aplusb = await problemNamed(stack, 'Sample: aplusb');
  second = await problemNamed(stack, 'Sample: five-subtask');
  context = await stack.newContext(1280);
  page = await context.newPage();
  errors = collectPageErrors(page);
  await signIn(page, contestant.username, contestant.password);
}, 120_000);

afterEach(async (test) => {
  if (test.task.result?.state === 'fail') await screenshot(page, `failed-contest-${test.task.name.slice(0, 40).replace(/\W+/g, '-')}`).catch(() => {});
});

describe('contests for a contestant', () => {
  it('with no contest, /contest says so and offers the history', async () => {
    await page.goto('/contest');
    await page.getByRole('heading', { name: 'ยังไม่มีการแข่งขัน' }).waitFor();
    await page.getByRole('link', { name: 'ประวัติการแข่งขัน' }).click();
    await page.waitForURL('**/contest/history');
    await page.getByRole('heading', { name: 'ประวัติการแข่งขัน' }).waitFor();
  });

  it('several upcoming contests: a table with modes, Buddhist-era start times and ticking countdowns', async () => {
    const problemIds = [second.id, aplusb.id];
    ids.running = await createContest(stack, adminToken, { name: names.running, startIn: START_DELAY, lengthMs: 2 * HOUR, scoreboardPolicy: 'DURING_CONTEST', mode: 'rated', problemIds, announce: ANNOUNCE });
    ids.upcoming = await createContest(stack, adminToken, { name: names.upcoming, startIn: 24 * HOUR, lengthMs: 3 * HOUR + 30 * MINUTE, scoreboardPolicy: 'DURING_CONTEST', problemIds });
    ids.afterOnly = await createContest(stack, adminToken, { name: names.afterOnly, startIn: -3 * HOUR, lengthMs: 2 * HOUR, scoreboardPolicy: 'AFTER_CONTEST', problemIds });
    ids.hidden = await createContest(stack, adminToken, { name: names.hidden, startIn: -5 * HOUR, lengthMs: HOUR, scoreboardPolicy: 'NOT_VISIBLE', problemIds });
    await announce(stack, adminToken, ids.running, FIRST_NEWS);
    await announce(stack, adminToken, ids.running, SECOND_NEWS);

    await page.goto('/contest');
    await page.getByRole('heading', { name: 'การแข่งขันปัจจุบัน' }).waitFor();
    const table = page.getByRole('table', { name: 'การแข่งขันปัจจุบัน' });
    // Finished contests are not current.
    await expect.poll(() => table.locator('tbody tr').count(), { timeout: POLL_TIMEOUT }).toBe(2);
    const running = table.locator(`tr[data-contest-id="${ids.running}"]`);
    const upcoming = table.locator(`tr[data-contest-id="${ids.upcoming}"]`);
    expect(await running.getByRole('link', { name: names.running }).getAttribute('href')).toBe(`/contest/${ids.running}`);
    expect(await running.innerText()).toContain('คิดเรตติ้ง');
    expect(await upcoming.innerText()).toContain('ไม่คิดเรตติ้ง');
    expect(await upcoming.innerText()).toContain('3 ชั่วโมง 30 นาที');
    expect(await upcoming.innerText()).toContain(buddhistYear());
    const countdown = running.locator('.contest-countdown');
    const first = await countdown.innerText();
    expect(first).toMatch(/^(เริ่มในอีก\s*)?00 : 00 : \d{2}$/);
    expect(await upcoming.locator('.contest-countdown').innerText()).toMatch(/2[34] : \d{2} : \d{2}$/);
    // It ticks on its own.
    await expect.poll(() => countdown.innerText(), { timeout: 5_000 }).not.toBe(first);
    await expectThai('/contest');
  });

  it('a pending contest shows its countdown and no problems, then opens by itself at the start', async () => {
    const requests: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes(`/api/contest/${ids.running}/detail`)) requests.push(request.url());
    });
    await page.goto(`/contest/${ids.running}`);
    await page.getByRole('heading', { name: `การแข่งขัน ${names.running} กำลังจะเริ่ม` }).waitFor();
    expect(await page.locator('.contest-hero-time').innerText()).toMatch(/^ในอีก \d+ วินาที$/);
    expect(await sidebar().locator('.contest-problems').count()).toBe(0);
    expect(await scoreboardLinks().count()).toBe(0);
    await expectThai('a pending contest');
    const document = await page.evaluate(() => performance.timeOrigin);

    // The start, on the server's clock: the page reads the contest again and shows the problems.
    await page.getByRole('heading', { name: `การแข่งขัน ${names.running}`, exact: true }).waitFor({ timeout: START_DELAY + 20_000 });
    expect(await page.evaluate(() => performance.timeOrigin)).toBe(document);
    // The phase turns on the clock first; the page's read of the contest follows (a busy machine shows the gap).
    await expect.poll(() => requests.length, { timeout: POLL_TIMEOUT }).toBeGreaterThanOrEqual(2);
    const links = sidebar().locator('.contest-problems a');
    await expect.poll(() => links.count(), { timeout: POLL_TIMEOUT }).toBe(2);
    // Sorted by id, each with its score (none yet: red).
    const [low, high] = [aplusb, second].sort((a, b) => a.id - b.id);
    expect(await links.nth(0).getAttribute('data-problem-id')).toBe(String(low!.id));
    expect(await links.nth(1).getAttribute('data-problem-id')).toBe(String(high!.id));
    expect(await links.nth(0).locator('.badge').getAttribute('class')).toContain('badge-red');
    await expect.poll(() => sidebar().locator('.contest-time-left').innerText(), { timeout: POLL_TIMEOUT }).toMatch(/^เหลือเวลาอีก 0[12] : \d{2} : \d{2}$/);
    await expect.poll(() => sidebar().locator('.contest-total').innerText(), { timeout: POLL_TIMEOUT }).toBe(`คะแนนรวม 0 / ${aplusb.score + second.score}`);
    await expect.poll(() => page.locator('.contest-hero-time').innerText(), { timeout: POLL_TIMEOUT }).toMatch(/^เหลือเวลาอีก 1 ชั่วโมง/);
    // DURING_CONTEST: the scoreboard opens with the start.
    expect(await sidebar().getByRole('link', { name: 'ตารางคะแนน' }).getAttribute('href')).toBe(`/contest/${ids.running}/scoreboard`);
    // Not an admin: no submissions page.
    expect(await sidebar().getByRole('link', { name: 'การส่ง' }).count()).toBe(0);
  }, START_DELAY + 60_000);

  it('the home shows the contest announce text with its line breaks', async () => {
    await page.goto(`/contest/${ids.running}`);
    const text = page.locator('.contest-announce .rich-text');
    await text.waitFor();
    expect(await text.innerText()).toBe(ANNOUNCE);
    expect(await page.getByRole('button', { name: 'แก้ไขประกาศ' }).count()).toBe(0);
  });

  it('solves a contest problem through the editor: the submission counts in the contest and the sidebar score turns full', async () => {
    let sentTo = '';
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().includes('/api/submission/problem/')) sentTo = request.url();
    });
    await page.goto(`/contest/${ids.running}`);
    await sidebar().locator(`a[data-problem-id="${aplusb.id}"]`).click();
    await page.waitForURL(`**/contest/${ids.running}/problem/${aplusb.id}`);
    await page.getByRole('heading', { name: aplusb.name }).waitFor();
    await page.locator(`embed[src*="/api/problem/doc/${aplusb.id}"]`).waitFor({ state: 'attached' });
    await page.getByRole('tab', { name: 'เขียนโค้ด' }).click();
    const editor = page.locator('.cm-content');
    await editor.waitFor();
    await page.getByLabel('ภาษา').selectOption('cpp');
    await editor.click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Delete');
    // CodeMirror auto-indents typed text: insert the source as one paste-like input instead.
    await page.keyboard.insertText(solution('accept.cpp'));
    await page.getByRole('button', { name: 'ส่ง', exact: true }).click();
    await page.waitForURL(/tab=submissions/);
    expect(new URL(sentTo).searchParams.get('contestId')).toBe(String(ids.running));
    const newest = page.getByRole('tabpanel').locator('tbody tr').first();
    await newest.getByText('ผ่าน', { exact: true }).waitFor({ timeout: VERDICT_TIMEOUT });
    expect(await newest.innerText()).toContain(`${aplusb.score} / ${aplusb.score}`);

    // The settled verdict refreshes the sidebar: full marks, green, and the total.
    const badge = sidebar().locator(`a[data-problem-id="${aplusb.id}"] .badge`);
    await expect.poll(() => badge.innerText(), { timeout: 20_000 }).toContain(`${aplusb.score} / ${aplusb.score}`);
    expect(await badge.getAttribute('class')).toContain('badge-green');
    expect(await sidebar().locator('.contest-total').innerText()).toBe(`คะแนนรวม ${aplusb.score} / ${aplusb.score + second.score}`);

    // The submissions tab lists contest submissions: the API agrees it is one.
    const me = await stack.api.login(contestant.username, contestant.password);
    const { body } = await stack.api.call('GET', `/submission/contest/${ids.running}?userId=${me.user.id}&problemId=${aplusb.id}`, { token: me.token });
    expect((body as Array<{ contestId: number }>).map((row) => row.contestId)).toEqual([ids.running]);
    await screenshot(page, 'contest-problem-submissions');
  }, VERDICT_TIMEOUT + 60_000);

  it('the announcement alert leads to the announcements, newest first, line breaks kept', async () => {
    await page.goto(`/contest/${ids.running}`);
    await sidebar().getByRole('link', { name: /ประกาศ!/ }).click();
    await page.waitForURL(`**/contest/${ids.running}/announcement`);
    const items = page.locator('.contest-announcement');
    await expect.poll(() => items.count(), { timeout: POLL_TIMEOUT }).toBe(2);
    expect(await items.nth(0).innerText()).toBe(SECOND_NEWS);
    expect(await items.nth(1).innerText()).toBe(FIRST_NEWS);
    expect(await page.getByRole('link', { name: 'จัดการประกาศ' }).count()).toBe(0);
  });

  it('the scoreboard link follows the policy: after the end for AFTER_CONTEST, never for NOT_VISIBLE or before the start', async () => {
    await page.goto(`/contest/${ids.afterOnly}`);
    await page.getByRole('heading', { name: `การแข่งขัน ${names.afterOnly} จบลงแล้ว` }).waitFor();
    expect(await page.getByRole('link', { name: 'สรุปผลการแข่งขัน' }).getAttribute('href')).toBe(`/contest/${ids.afterOnly}/scoreboard`);
    expect(await sidebar().getByRole('link', { name: 'ตารางคะแนน' }).count()).toBe(1);
    // Over: no problem list, no clock.
    expect(await sidebar().locator('.contest-problems').count()).toBe(0);

    await page.goto(`/contest/${ids.hidden}`);
    await page.getByRole('heading', { name: `การแข่งขัน ${names.hidden} จบลงแล้ว` }).waitFor();
    await page.waitForLoadState('networkidle');
    expect(await scoreboardLinks().count()).toBe(0);

    await page.goto(`/contest/${ids.upcoming}`);
    await page.getByRole('heading', { name: `การแข่งขัน ${names.upcoming} กำลังจะเริ่ม` }).waitFor();
    expect(await page.locator('.contest-hero-time').innerText()).toMatch(/^ในอีก (23 ชั่วโมง|1 วัน)/);
    expect(await scoreboardLinks().count()).toBe(0);

    // A contest problem outside the contest's time leads back to its home.
    await page.goto(`/contest/${ids.afterOnly}/problem/${aplusb.id}`);
    await page.waitForURL(`**/contest/${ids.afterOnly}`);
  });

  it('the history lists every contest ten to a page, with Buddhist-era dates', async () => {
    // Seven more past contests: eleven in all, so a second page.
    for (let index = 1; index <= 7; index++) {
      await createContest(stack, adminToken, { name: `แข่งเก่า ${index} ${suffix}`, startIn: -(10 + index) * 24 * HOUR, lengthMs: HOUR, scoreboardPolicy: 'AFTER_CONTEST' });
    }
    await page.goto('/contest/history');
    const table = page.getByRole('table', { name: 'ประวัติการแข่งขัน' });
    await expect.poll(() => table.locator('tbody tr').count(), { timeout: POLL_TIMEOUT }).toBe(10);
    await page.getByText('หน้า 1 / 2').waitFor();
    const upcoming = table.locator(`tr[data-contest-id="${ids.upcoming}"]`);
    expect(await upcoming.innerText()).toContain(buddhistYear(new Date(Date.now() + 24 * HOUR)));
    expect(await upcoming.getByRole('link', { name: names.upcoming }).getAttribute('href')).toBe(`/contest/${ids.upcoming}`);
    expect(await table.locator('th').allInnerTexts()).toEqual(['#', 'การแข่งขัน', 'โหมด', 'เวลาเริ่ม', 'ระยะเวลา']);
    await page.getByRole('button', { name: 'ถัดไป' }).click();
    await page.getByText('หน้า 2 / 2').waitFor();
    await expect.poll(() => table.locator('tbody tr').count(), { timeout: POLL_TIMEOUT }).toBe(1);
    expect(new URL(page.url()).searchParams.get('page')).toBe('2');
    expect(await page.getByRole('button', { name: 'ถัดไป' }).isDisabled()).toBe(true);
    await expectThai('/contest/history');
  });

  it('screenshots of every contest page at 1280 and 390 px, light and dark, without sideways scrolling', async () => {
    const pages: Array<[string, string, (page: Page) => Promise<void>]> = [
      ['contest-list', '/contest', (p) => p.getByRole('heading', { name: 'การแข่งขันปัจจุบัน' }).waitFor()],
      ['contest-history', '/contest/history', (p) => p.getByRole('table', { name: 'ประวัติการแข่งขัน' }).waitFor()],
      ['contest-pending', `/contest/${ids.upcoming}`, (p) => p.getByRole('heading', { name: /กำลังจะเริ่ม/ }).waitFor()],
      ['contest-running', `/contest/${ids.running}`, (p) => p.locator('.contest-problems a').first().waitFor()],
      ['contest-problem', `/contest/${ids.running}/problem/${aplusb.id}`, (p) => p.getByRole('heading', { name: aplusb.name }).waitFor()],
      ['contest-problem-results', `/contest/${ids.running}/problem/${aplusb.id}?tab=submissions`, (p) => p.getByRole('tabpanel').getByText('ผ่าน', { exact: true }).first().waitFor()],
      ['contest-announcement', `/contest/${ids.running}/announcement`, (p) => p.locator('.contest-announcement').first().waitFor()],
      ['contest-finished', `/contest/${ids.afterOnly}`, (p) => p.getByRole('heading', { name: /จบลงแล้ว/ }).waitFor()],
    ];
    for (const width of [1280, 390]) {
      await page.setViewportSize(viewport(width));
      for (const [name, path, ready] of pages) await visitInBothThemes(page, name, path, ready);
    }
    await page.setViewportSize(viewport(1280));
    // At 390 px the sidebar sits above the content, as wide as the screen.
    expect(unexpected(errors)).toEqual([]);
  }, 480_000);

  it('one current contest: /contest goes straight to it', async () => {
    await stack.api.call('DELETE', `/contest/${ids.upcoming}`, { token: adminToken });
    await page.goto('/contest');
    await page.waitForURL(`**/contest/${ids.running}`);
    await page.getByRole('heading', { name: `การแข่งขัน ${names.running}`, exact: true }).waitFor();
  });
});

describe('contests for an admin', () => {
  let admin: Page;
  beforeAll(async () => {
    admin = await (await stack.newContext(1280)).newPage();
    await signIn(admin, ADMIN.username, ADMIN.password);
  });

  it('edits the announce text in place, sees the scoreboard link of any contest and every submission of the contest', async () => {
    await admin.goto(`/contest/${ids.running}`);
    await admin.getByRole('button', { name: 'แก้ไขประกาศ' }).click();
    const field = admin.getByLabel('ประกาศ', { exact: true });
    expect(await field.inputValue()).toBe(ANNOUNCE);
    await field.fill('กติกาใหม่\nส่งได้ไม่จำกัด');
    await admin.getByRole('button', { name: 'บันทึก', exact: true }).click();
    await admin.getByText('บันทึกประกาศแล้ว').waitFor();
    await expect.poll(() => admin.locator('.contest-announce .rich-text').innerText(), { timeout: POLL_TIMEOUT }).toBe('กติกาใหม่\nส่งได้ไม่จำกัด');
    const { body } = await stack.api.call('GET', `/contest/${ids.running}`);
    expect((body as { announce: string }).announce).toBe('กติกาใหม่\nส่งได้ไม่จำกัด');

    await admin.goto(`/contest/${ids.running}/announcement`);
    expect(await admin.getByRole('link', { name: 'จัดการประกาศ' }).getAttribute('href')).toBe(`/admin/contest/${ids.running}`);

    // NOT_VISIBLE hides the board from contestants, never from admins.
    await admin.goto(`/contest/${ids.hidden}`);
    await admin.getByRole('heading', { name: /จบลงแล้ว/ }).waitFor();
    expect(await admin.getByRole('link', { name: 'สรุปผลการแข่งขัน' }).count()).toBe(1);

    await admin.goto(`/contest/${ids.running}`);
    await admin.locator('aside.contest-sidebar').getByRole('link', { name: 'การส่ง' }).click();
    await admin.waitForURL(`**/contest/${ids.running}/submission`);
    await admin.getByRole('heading', { name: 'การส่งทั้งหมดในการแข่งขัน' }).waitFor();
    const rows = admin.getByRole('table', { name: `การส่งทั้งหมดใน ${names.running}` }).locator('tbody tr');
    await expect.poll(() => rows.first().innerText(), { timeout: POLL_TIMEOUT }).toContain(contestant.showName);
    expect(await rows.count()).toBe(1);
    await admin.getByRole('searchbox', { name: 'ค้นหาชื่อผู้ใช้' }).fill('ไม่มีใครชื่อนี้');
    await admin.getByText('ไม่พบการส่งที่ค้นหา').waitFor();
    await admin.getByRole('searchbox', { name: 'ค้นหาชื่อผู้ใช้' }).fill('');
    await admin.getByRole('searchbox', { name: 'ค้นหาชื่อโจทย์' }).fill('aplusb');
    await expect.poll(() => rows.first().innerText(), { timeout: POLL_TIMEOUT }).toContain(contestant.showName);

    for (const width of [1280, 390]) {
      await admin.setViewportSize(viewport(width));
      await visitInBothThemes(admin, 'contest-submission-admin', `/contest/${ids.running}/submission`, (p) => p.getByRole('heading', { name: 'การส่งทั้งหมดในการแข่งขัน' }).waitFor());
      await visitInBothThemes(admin, 'contest-home-admin', `/contest/${ids.running}`, (p) => p.getByRole('button', { name: 'แก้ไขประกาศ' }).waitFor());
    }
  }, 300_000);

  it('contestants cannot open the submissions page', async () => {
    await page.goto(`/contest/${ids.running}/submission`);
    await page.getByRole('heading', { name: 'ไม่พบหน้าที่คุณต้องการ' }).waitFor();
  });
});
