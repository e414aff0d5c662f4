/**
 * What a new user ran into, each fixed and checked in a real browser against OTOG as `npm start` runs it:
 * (a) the submission list and the problem list at 390 px show the verdict, the score and the submit button;
 * (b) the lists name the verdict in Thai (the rule itself is a table test here too); (c) Ctrl+K opens the
 * quick search as ⌘K does, with the platform's key in the hint; (d) announcements keep their line breaks;
 * (e) the problem list's search and filters live in the URL; (f) registering signs the user in; (g) a new
 * avatar shows at once in the top bar.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import type { RuntimeErrorKind, SubmissionStatus } from '@otog/schemas/common/judging';
import { verdictKind, type VerdictKind } from '../../web/src/components/submission/verdict-kind.ts';
import { filtersFromParams, paramsWithFilters, type Filters } from '../../web/src/features/problems/filters.ts';
import { until } from '../support/until.ts';
import { solution } from './fixtures.ts';
import { ADMIN, collectPageErrors, screenshot, startWebStack, viewport, type WebStack } from './support.ts';

describe('verdictKind: the first character that is neither a pass nor a skip decides', () => {
  const table: Array<[SubmissionStatus, string | null, RuntimeErrorKind | undefined, VerdictKind]> = [
    ['waiting', null, undefined, 'waiting'],
    ['grading', null, undefined, 'grading'],
    ['accept', 'PPPPP', undefined, 'accepted'],
    ['compileError', 'Compilation Error', undefined, 'compileError'],
    ['judgeError', 'Judge Error', undefined, 'judgeError'],
    ['reject', 'PPP-T', undefined, 'wrongAnswer'],
    ['reject', 'PPTP-', undefined, 'timeLimit'],
    ['reject', 'PPXPP', undefined, 'runtimeError'],
    ['reject', 'PPXPP', 'MEMORY_LIMIT_EXCEEDED', 'memoryLimit'],
    ['reject', '(PPP%%)', undefined, 'partial'],
    ['reject', '[PPPP][PXSS](PP)', undefined, 'runtimeError'],
    ['reject', '(PPPPP)[PPPP][SSS](PP)(--)', undefined, 'wrongAnswer'],
    ['reject', '[PP][SS]', undefined, 'rejected'],
    ['reject', 'P?PP', undefined, 'problemError'],
    ['reject', 'PP!', undefined, 'judgeError'],
    ['reject', 'Compilation Error', undefined, 'compileError'],
    ['reject', 'Subtask Error', undefined, 'problemError'],
    ['reject', '', undefined, 'rejected'],
    ['reject', null, undefined, 'rejected'],
  ];
  it.each(table)('%s %j %s → %s', (status, result, kind, expected) => {
    expect(verdictKind(status, result, kind)).toBe(expected);
  });
});

describe("the problem list's filters in the URL", () => {
  const table: Array<[string, Filters]> = [
    ['', { search: '', status: 'all', today: false }],
    ['?q=aplusb&status=passed&today=1', { search: 'aplusb', status: 'passed', today: true }],
    ['?status=notSubmitted', { search: '', status: 'notSubmitted', today: false }],
    ['?status=bogus&today=yes', { search: '', status: 'all', today: false }],
  ];
  it.each(table)('%j reads as %j', (query, filters) => {
    expect(filtersFromParams(new URLSearchParams(query))).toEqual(filters);
  });
  it('writes only what differs from the defaults, keeping other parameters', () => {
    const base = new URLSearchParams('?q=old&status=passed&keep=1');
    expect(paramsWithFilters(base, { search: 'ab', status: 'all', today: true }).toString()).toBe('q=ab&keep=1&today=1');
    expect(paramsWithFilters(base, { search: '' }).toString()).toBe('status=passed&keep=1');
    expect(base.toString()).toBe('q=old&status=passed&keep=1');
  });
});

describe('a new user', () => {
  let stack: WebStack;
  let page: Page;
  let errors: string[];
  const suffix = String(Date.now() % 1_000_000);
  const user = { username: `mai_${suffix}`, password: 'new-user-pass-1', showName: `ผู้ใช้ใหม่ ${suffix}` };
  let userId = 0;
  let userToken = '';
  let adminToken = '';
  let aplusb: { id: number; name: string };

  beforeAll(async () => {
    stack = await startWebStack();
    adminToken = (await stack.api.login(ADMIN.username, ADMIN.password)).token;
    const problems = (await stack.api.call('GET', '/problem')).body as Array<{ id: number; name: string }>;
    aplusb = problems.find((problem) => problem.name.startsWith('Sample: aplusb'))!;
    const context = await stack.newContext(1280);
    page = await context.newPage();
    errors = collectPageErrors(page);
  }, 240_000);
  afterAll(async () => stack?.stop(), 60_000);
  afterEach(async (test) => {
    if (test.task.result?.state === 'fail') await screenshot(page, `fixes-failed-${test.task.name.slice(0, 40).replace(/\W+/g, '-')}`).catch(() => {});
  });

  async function submit(source: string): Promise<number> {
    const form = new FormData();
    form.set('language', 'cpp');
    form.set('sourceCode', new Blob([source]), 'main.cpp');
    const { status, body } = await stack.api.call('POST', `/submission/problem/${aplusb.id}`, { token: userToken, form });
    if (status !== 200) throw new Error(`submit: ${status} ${JSON.stringify(body)}`);
    const id = (body as { id: number }).id;
    await until(
      `submission ${id} to be judged`,
      async () => !['waiting', 'grading'].includes(((await stack.api.call('GET', `/submission/${id}`, { token: userToken })).body as { status: string }).status),
      90_000,
      250,
    );
    return id;
  }

  it('(f) registering signs the user in and lands on the home page (then the problems)', async () => {
    await page.goto('/register');
    await page.getByLabel('ชื่อผู้ใช้').fill(user.username);
    await page.getByLabel('รหัสผ่าน').fill(user.password);
    await page.getByLabel('ชื่อที่ใช้แสดง').fill(user.showName);
    await page.getByRole('button', { name: 'ลงทะเบียน' }).click();
    await page.waitForURL((url) => url.pathname === '/problem', { timeout: 20_000 });
    await page.getByRole('button', { name: `เมนูผู้ใช้ ${user.showName}` }).waitFor();
    expect(await page.evaluate(() => document.cookie.includes('accessToken='))).toBe(true);
    const session = await stack.api.login(user.username, user.password);
    userId = session.user.id;
    userToken = session.token;
  });

  it('(c) Ctrl+K opens the quick search as ⌘K does; the hint names the key of this platform', async () => {
    await page.goto('/problem');
    await page.getByRole('button', { name: 'ค้นหาโจทย์' }).waitFor();
    // Chromium on Linux: the Ctrl key.
    expect(await page.locator('.search-key-hint').innerText()).toBe('Ctrl K');
    expect(await page.getByRole('button', { name: 'ค้นหาโจทย์' }).getAttribute('aria-keyshortcuts')).toContain('Control+K');
    await page.locator('body').click({ position: { x: 5, y: 200 } });
    await page.keyboard.press('Control+KeyK');
    await page.getByRole('dialog').getByRole('combobox').waitFor();
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    await page.keyboard.press('Meta+KeyK');
    await page.getByRole('dialog').getByRole('combobox').waitFor();
    await page.keyboard.press('Escape');
  });

  it('(b, a) the submission list names the verdict in Thai, and at 390 px shows verdict, score and time first', async () => {
    const wrong = await submit(solution('wrong.cpp'));
    const broken = await submit(solution('compile-error.cpp'));
    await page.goto('/submission?all=false');
    const rowOf = (id: number) => page.locator('main tbody tr', { has: page.getByRole('button', { name: `ดูรายละเอียดผลตรวจ #${id}`, exact: true }) });
    // (A busy machine may take a while to load the list: the other suites judge and build too.)
    await expect.poll(() => rowOf(wrong).locator('.verdict-label').innerText(), { timeout: 30_000 }).toBe('คำตอบผิด');
    await expect.poll(() => rowOf(broken).locator('.verdict-label').innerText(), { timeout: 30_000 }).toBe('คอมไพล์ไม่ผ่าน');
    expect(await rowOf(wrong).locator('.score-badge').innerText()).toContain('/ 100');

    await page.setViewportSize(viewport(390));
    await page.waitForLoadState('networkidle');
    await screenshot(page, 'fixes-submissions-phone');
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1)).toBe(true);
    for (const id of [wrong, broken]) {
      const row = rowOf(id);
      for (const part of ['.verdict-label', '.score-badge', '.submission-time']) {
        const box = await row.locator(part).boundingBox();
        expect(box, `${part} of #${id}`).not.toBeNull();
        expect(box!.x, `${part} of #${id} starts on screen`).toBeGreaterThanOrEqual(0);
        expect(box!.x + box!.width, `${part} of #${id} ends on screen`).toBeLessThanOrEqual(390);
        expect(await row.locator(part).isVisible()).toBe(true);
      }
      // Verdict and score come before everything else in the card.
      const verdictTop = (await row.locator('.verdict-label').boundingBox())!.y;
      const problemTop = (await row.locator('.submission-problem').boundingBox())!.y;
      expect(verdictTop).toBeLessThan(problemTop);
    }
    expect(await rowOf(wrong).locator('.submission-time').innerText()).toMatch(/^\d+\.\d{3} วินาที$/);
    // Cards on screen, still a table for screen readers.
    const table = page.getByRole('table', { name: 'ผลตรวจ' });
    expect(await table.getByRole('columnheader', { name: 'ผลตรวจ' }).count()).toBe(1);
    expect(await table.getByRole('row').count()).toBeGreaterThanOrEqual(3);
    expect(await table.getByRole('cell', { name: /คำตอบผิด/ }).count()).toBe(1);
  });

  it('(a) at 390 px every problem row has its submit button on screen', async () => {
    await page.setViewportSize(viewport(390));
    await page.goto('/problem');
    await page.locator('tr.problem-row[data-problem-id]').first().waitFor();
    await screenshot(page, 'fixes-problems-phone');
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1)).toBe(true);
    const rows = page.locator('tr.problem-row[data-problem-id]');
    const count = await rows.count();
    expect(count).toBeGreaterThan(0);
    for (let index = 0; index < count; index++) {
      const button = rows.nth(index).getByRole('button', { name: /^ส่งข้อ / });
      const box = await button.boundingBox();
      expect(box, `submit button of row ${index}`).not.toBeNull();
      expect(box!.x + box!.width, `submit button of row ${index} is on screen`).toBeLessThanOrEqual(390);
    }
    // And it works from there.
    await rows.first().getByRole('button', { name: /^ส่งข้อ / }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'ส่ง', exact: true }).waitFor();
    await page.keyboard.press('Escape');
    await page.setViewportSize(viewport(1280));
  });

  it('(d) an announcement written on two lines shows two lines', async () => {
    const first = `ประกาศบรรทัดแรก ${suffix}`;
    const second = `บรรทัดที่สอง ${suffix}`;
    const value = JSON.stringify([{ type: 'paragraph', children: [{ text: `${first}\n${second}` }] }]);
    const created = await stack.api.call('POST', '/announcement', { token: adminToken, json: { value } });
    expect(created.status).toBeLessThan(300);
    const id = (created.body as { id: number }).id;
    expect((await stack.api.call('PATCH', `/announcement/${id}`, { token: adminToken, json: { show: true } })).status).toBeLessThan(300);

    await page.goto('/problem');
    const card = page.getByTestId('announcement').filter({ hasText: first });
    await card.waitFor();
    const lines = (await card.innerText()).split('\n').map((line) => line.trim()).filter(Boolean);
    expect(lines).toEqual([first, second]);
    // Drawn on two lines, not only kept in the text.
    const paragraph = card.locator('p').first();
    const rectTops = await paragraph.evaluate((element) => {
      const range = document.createRange();
      range.selectNodeContents(element);
      return [...new Set([...range.getClientRects()].map((rect) => Math.round(rect.top)))];
    });
    expect(rectTops.length).toBe(2);
  });

  it('(e) the problem list keeps its search and status filter in the URL: Back and a bookmark bring them back; rows are dense at 1280 px', async () => {
    await page.setViewportSize(viewport(1280));
    await page.goto('/problem');
    await page.locator('tr.problem-row[data-problem-id]').first().waitFor();
    const rowHeight = (await page.locator('tr.problem-row[data-problem-id]').first().boundingBox())!.height;
    expect(rowHeight).toBeLessThanOrEqual(45);

    await page.getByRole('searchbox', { name: 'ค้นหาโจทย์' }).fill('aplusb');
    await page.getByLabel('สถานะ').selectOption('notPassed');
    await expect.poll(() => new URL(page.url()).searchParams.get('q'), { timeout: 20_000 }).toBe('aplusb');
    expect(new URL(page.url()).searchParams.get('status')).toBe('notPassed');
    await expect.poll(() => page.locator('tr.problem-row[data-problem-id]').count(), { timeout: 20_000 }).toBe(1);

    await page.locator(`tr[data-problem-id="${aplusb.id}"]`).getByRole('link', { name: String(aplusb.id) }).click();
    await page.waitForURL(`**/problem/${aplusb.id}`);
    await page.goBack();
    await page.waitForURL((url) => url.pathname === '/problem');
    expect(new URL(page.url()).searchParams.get('q')).toBe('aplusb');
    expect(await page.getByLabel('สถานะ').inputValue()).toBe('notPassed');
    expect(await page.getByRole('searchbox', { name: 'ค้นหาโจทย์' }).inputValue()).toBe('aplusb');
    await expect.poll(() => page.locator('tr.problem-row[data-problem-id]').count(), { timeout: 20_000 }).toBe(1);

    // A bookmark (a fresh load of the URL) shows the same list; the counters follow the URL too.
    await page.goto('/problem?status=notSubmitted');
    await expect.poll(() => page.getByTestId('counter-notSubmitted').getAttribute('aria-pressed'), { timeout: 20_000 }).toBe('true');
    expect(await page.locator(`tr[data-problem-id="${aplusb.id}"]`).count()).toBe(0);
    await page.getByTestId('counter-all').click();
    await expect.poll(() => new URL(page.url()).search, { timeout: 20_000 }).toBe('');
  });

  it('(g) a new avatar shows in the top bar at once, without a reload', async () => {
    const photo = (color: string) => sharp({ create: { width: 64, height: 64, channels: 3, background: color } }).png().toBuffer();
    await page.goto(`/user/${userId}`);
    const document = await page.evaluate(() => performance.timeOrigin);
    const topBarImage = page.locator('.topbar img.avatar');
    const upload = async (color: string) => {
      const uploaded = page.waitForResponse((response) => response.request().method() === 'POST' && response.url().endsWith(`/api/user/${userId}/avatar`));
      await page.locator('input[type=file]').setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: await photo(color) });
      expect((await uploaded).status()).toBe(200);
    };
    await upload('#ff0000');
    await expect.poll(() => topBarImage.getAttribute('src'), { timeout: 20_000 }).toMatch(new RegExp(`/api/images/${userId}_32\\.jpeg\\?v=\\d+$`));
    const first = await topBarImage.getAttribute('src');
    await expect.poll(() => topBarImage.evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth > 0), { timeout: 20_000 }).toBe(true);
    // The profile's big photo follows too.
    await expect.poll(() => page.locator('.profile-avatar img.avatar').getAttribute('src'), { timeout: 20_000 }).toMatch(/\?v=\d+$/);

    await upload('#0000ff');
    await expect.poll(() => topBarImage.getAttribute('src'), { timeout: 20_000 }).not.toBe(first);
    await expect.poll(() => topBarImage.evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth > 0), { timeout: 20_000 }).toBe(true);
    expect(await page.evaluate(() => performance.timeOrigin)).toBe(document);
    await screenshot(page, 'fixes-new-avatar');
    expect(errors.filter((error) => !/status of (401|404)\b/.test(error))).toEqual([]);
  });
});
