/**
 * The profile after a rated contest, in a real browser against OTOG as `npm start` runs it: an admin makes a
 * rated contest that ends during the test, two contestants submit to it (one accepted, one wrong), the server
 * confirms the end and rates it; then each profile shows the new rating in its band's colour, the rating
 * graph (its own chunk) with a point whose tooltip names the contest, the rank and the rating (by pointer
 * and by keyboard), and the contest history row. Screenshots at 1280 and 390 px in both colour modes.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { formatRatingChange, ratingBand } from '../../web/src/lib/rating.ts';
import { until } from '../support/until.ts';
import { solution } from './fixtures.ts';
import { accessibilityViolations, ADMIN, buddhistYear, collectPageErrors, englishWords, screenshot, startWebStack, viewport, type WebStack } from './support.ts';

let stack: WebStack;
beforeAll(async () => {
  stack = await startWebStack();
}, 240_000);
afterAll(async () => stack?.stop(), 60_000);

const suffix = String(Date.now() % 1_000_000);
const contestName = `รอบจัดอันดับ ${suffix}`;
const winner = { username: `chana_${suffix}`, password: 'winner-pass-1', showName: `ผู้ชนะ ${suffix}` };
const runnerUp = { username: `rong_${suffix}`, password: 'runner-pass-1', showName: `รองชนะ ${suffix}` };
/** Long enough for both submissions to be judged while it runs. */
const CONTEST_SECONDS_LEFT = 40;

interface RatingEntry {
  contestId: number;
  name: string;
  rank: number;
  rating: number;
}

async function submit(token: string, problemId: number, contestId: number, source: string): Promise<number> {
  const form = new FormData();
  form.set('language', 'cpp');
  form.set('sourceCode', new Blob([source]), 'main.cpp');
  const { status, body } = await stack.api.call('POST', `/submission/problem/${problemId}?contestId=${contestId}`, { token, form });
  if (status !== 200) throw new Error(`submit: ${status} ${JSON.stringify(body)}`);
  return (body as { id: number }).id;
}

async function judged(token: string, submissionId: number): Promise<string> {
  let status = 'waiting';
  await until(
    `submission ${submissionId} to be judged`,
    async () => {
      status = ((await stack.api.call('GET', `/submission/${submissionId}`, { token })).body as { status: string }).status;
      return status !== 'waiting' && status !== 'grading';
    },
    90_000,
    250,
  );
  return status;
}

/** The colour a band's variable gives text in the page's current colour mode. */
const bandColour = (page: Page, band: string) =>
  page.evaluate((name) => {
    const probe = document.createElement('span');
    probe.style.color = `var(--rating-${name})`;
    document.body.append(probe);
    const colour = getComputedStyle(probe).color;
    probe.remove();
    return colour;
  }, band);

describe('a rated contest on the profile', () => {
  let contestId = 0;
  const ids = { winner: 0, runnerUp: 0, admin: 0 };
  const ratings: Record<'winner' | 'runnerUp', RatingEntry> = {} as Record<'winner' | 'runnerUp', RatingEntry>;
  let page: Page;
  let errors: string[];

  beforeAll(async () => {
    const admin = await stack.api.login(ADMIN.username, ADMIN.password);
    ids.admin = admin.user.id;
    await stack.api.register(winner.username, winner.password, winner.showName);
    await stack.api.register(runnerUp.username, runnerUp.password, runnerUp.showName);
    const [w, r] = [await stack.api.login(winner.username, winner.password), await stack.api.login(runnerUp.username, runnerUp.password)];
    ids.winner = w.user.id;
    ids.runnerUp = r.user.id;

    const problems = (await stack.api.call('GET', '/problem')).body as Array<{ id: number; name: string }>;
    const aplusb = problems.find((problem) => problem.name.startsWith('Sample: aplusb'))!;
    const now = Date.now();
    const created = await stack.api.call('POST', '/contest', {
      token: admin.token,
      json: {
        name: contestName,
        mode: 'rated',
        gradingMode: 'classic',
        scoreboardPolicy: 'DURING_CONTEST',
        timeStart: new Date(now - 60_000).toISOString(),
        timeEnd: new Date(now + CONTEST_SECONDS_LEFT * 1000).toISOString(),
        announce: null,
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    contestId = (created.body as { id: number }).id;
    const added = await stack.api.call('PUT', `/contest/${contestId}/problems`, { token: admin.token, json: [{ problemId: aplusb.id }] });
    expect(added.status, JSON.stringify(added.body)).toBe(200);

    const accepted = await submit(w.token, aplusb.id, contestId, solution('accept.cpp'));
    const wrong = await submit(r.token, aplusb.id, contestId, solution('wrong.cpp'));
    expect(await judged(w.token, accepted)).toBe('accept');
    expect(await judged(r.token, wrong)).toBe('reject');

    // The contest ends; the server confirms the end and rates it.
    for (const [who, id] of [['winner', ids.winner], ['runnerUp', ids.runnerUp]] as const) {
      await until(
        `the rating of ${who} after contest ${contestId}`,
        async () => {
          const history = (await stack.api.call('GET', `/user/${id}/rating`)).body as RatingEntry[];
          const entry = Array.isArray(history) ? history.find((row) => row.contestId === contestId) : undefined;
          if (entry) ratings[who] = entry;
          return entry !== undefined;
        },
        CONTEST_SECONDS_LEFT * 1000 + 90_000,
        500,
      );
    }
    expect(ratings.winner.rank).toBe(1);
    expect(ratings.runnerUp.rank).toBe(2);
    expect(ratings.winner.rating).toBeGreaterThan(ratings.runnerUp.rating);

    const context = await stack.newContext(1280);
    page = await context.newPage();
    errors = collectPageErrors(page);
  }, 240_000);

  afterEach(async (test) => {
    if (test.task.result?.state === 'fail') {
      await screenshot(page, `profile-failed-${test.task.name.slice(0, 40).replace(/\W+/g, '-')}`).catch(() => {});
      console.error(errors.join('\n'));
    }
  });

  it('shows the new rating in its band colour, the graph point with its tooltip, and the history row', async () => {
    const scripts: string[] = [];
    page.on('request', (request) => {
      if (request.resourceType() === 'script') scripts.push(new URL(request.url()).pathname);
    });
    for (const who of ['winner', 'runnerUp'] as const) {
      const entry = ratings[who];
      const band = ratingBand(entry.rating)!;
      await page.goto(`/user/${ids[who]}`);
      const value = page.locator('.profile-rating-value');
      await expect.poll(() => value.innerText(), { timeout: 30_000 }).toBe(String(entry.rating));
      expect(await value.getAttribute('data-band')).toBe(band);
      expect(await value.evaluate((element) => getComputedStyle(element).color)).toBe(await bandColour(page, band));

      // The graph: a point for the contest, with a tooltip by pointer...
      const point = page.locator(`.rating-point[data-contest-id="${contestId}"]`);
      await point.waitFor();
      await point.hover();
      const tooltip = page.getByRole('tooltip');
      await tooltip.waitFor();
      const tip = await tooltip.innerText();
      expect(tip).toContain(contestName);
      expect(tip).toContain(`อันดับ ${entry.rank}`);
      expect(tip).toContain(String(entry.rating));
      expect(tip).toContain(formatRatingChange(entry.rating - 1500));
      await page.mouse.move(0, 0);
      await tooltip.waitFor({ state: 'detached' });
      // ...and by keyboard: Tab reaches the point, which names the same.
      await page.locator('#profile-contests').click();
      for (let step = 0; step < 10 && !(await point.evaluate((element) => element === document.activeElement)); step++) await page.keyboard.press('Tab');
      expect(await point.evaluate((element) => element === document.activeElement)).toBe(true);
      expect(await page.getByRole('tooltip').innerText()).toContain(`อันดับ ${entry.rank}`);
      expect(await point.getAttribute('aria-label')).toBe(`${contestName}: อันดับ ${entry.rank} เรตติ้ง ${entry.rating} (${formatRatingChange(entry.rating - 1500)})`);
      expect(await point.locator('.rating-point-dot').evaluate((element) => getComputedStyle(element).fill)).toBe(await bandColour(page, band));

      // The history: contest → its page, the date in the Buddhist era, rank, rating after and the change.
      const row = page.getByRole('table', { name: 'ประวัติการแข่งขัน' }).locator(`tr[data-contest-id="${contestId}"]`);
      const cells = await row.locator('td').allInnerTexts();
      expect(cells[0]!.split('\n')[0]).toBe(contestName);
      expect(cells[0]).toContain(buddhistYear());
      expect(cells.slice(1)).toEqual([String(entry.rank), String(entry.rating), formatRatingChange(entry.rating - 1500)]);
      expect(await row.getByRole('link', { name: contestName }).getAttribute('href')).toBe(`/contest/${contestId}`);
    }
    // The graph's code came in a chunk of its own.
    expect(scripts.some((path) => /RatingGraph[-.]/.test(path)), scripts.join('\n')).toBe(true);

    await page.locator(`.rating-point[data-contest-id="${contestId}"]`).click();
    await page.waitForURL(`**/contest/${contestId}`);
  });

  it('a user without rated contests: "ยังไม่มีเรตติ้ง" and no graph', async () => {
    await page.goto(`/user/${ids.admin}`);
    await page.getByText('ยังไม่มีเรตติ้ง').waitFor();
    await page.getByText('ยังไม่เคยแข่งขันแบบจัดอันดับ').waitFor();
    expect(await page.locator('.rating-graph').count()).toBe(0);
  });

  it('is Thai, accessible in both colour modes at 1280 px, and fits 390 px; screenshots', async () => {
    const content = [contestName, winner.showName, winner.username, runnerUp.showName, 'OTOG'];
    for (const theme of ['light', 'dark'] as const) {
      await page.evaluate((mode) => localStorage.setItem('theme', mode), theme);
      for (const width of [1280, 390]) {
        await page.setViewportSize(viewport(width));
        await page.goto(`/user/${ids.winner}`);
        await page.locator(`.rating-point[data-contest-id="${contestId}"]`).waitFor();
        await page.waitForLoadState('networkidle');
        expect(await page.evaluate(() => document.documentElement.classList.contains('dark'))).toBe(theme === 'dark');
        // The band colour differs between the modes (each meets AA on its background).
        const band = ratingBand(ratings.winner.rating)!;
        expect(await page.locator('.profile-rating-value').evaluate((element) => getComputedStyle(element).color)).toBe(await bandColour(page, band));
        await screenshot(page, `profile-rated-${theme}`);
        expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1), `sideways scroll at ${width} px`).toBe(true);
        expect(await englishWords(page, content)).toEqual([]);
        if (width === 1280) {
          expect(await accessibilityViolations(page), `WCAG A/AA in ${theme} mode`).toEqual([]);
          // With the tooltip open too.
          await page.locator(`.rating-point[data-contest-id="${contestId}"]`).hover();
          await page.getByRole('tooltip').waitFor();
          expect(await accessibilityViolations(page), `WCAG A/AA in ${theme} mode, tooltip open`).toEqual([]);
          await page.mouse.move(0, 0);
        }
      }
    }
    await page.evaluate(() => localStorage.setItem('theme', 'light'));
    expect(errors.filter((error) => !/status of (401|404)\b/.test(error))).toEqual([]);
  });
});
