/** What the contest browser suites share: contests made through the API as an admin, and the sample problems. */
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { accessibilityViolations, screenshot, type WebStack } from './support.ts';

export interface ProblemRow {
  readonly id: number;
  readonly name: string;
  readonly score: number;
}

/** How long a check waits for the page to catch up (vitest's 1 s is too short on a busy 2-core machine). */
export const POLL_TIMEOUT = 15_000;

/** A shown sample problem by its name's start ("Sample: aplusb"); offline the list needs an admin's token. */
export async function problemNamed(stack: WebStack, prefix: string, token?: string): Promise<ProblemRow> {
  const { body } = await stack.api.call('GET', '/problem', token ? { token } : {});
  const row = (body as ProblemRow[]).find((problem) => problem.name.startsWith(prefix));
  if (!row) throw new Error(`no problem named ${prefix}*`);
  return row;
}

export interface ContestSpec {
  readonly name: string;
  /** Milliseconds from now (negative: in the past). */
  readonly startIn: number;
  readonly lengthMs: number;
  readonly scoreboardPolicy: 'DURING_CONTEST' | 'AFTER_CONTEST' | 'NOT_VISIBLE';
  readonly mode?: 'rated' | 'unrated';
  readonly problemIds?: readonly number[];
  readonly announce?: string;
}

async function expectOk(call: Promise<{ status: number; body: unknown }>, what: string): Promise<unknown> {
  const { status, body } = await call;
  if (status < 200 || status >= 300) throw new Error(`${what}: ${status} ${JSON.stringify(body)}`);
  return body;
}

/** Creates a contest with its problems as the admin; answers its id. */
export async function createContest(stack: WebStack, token: string, spec: ContestSpec): Promise<number> {
  const start = Date.now() + spec.startIn;
  const contest = (await expectOk(
    stack.api.call('POST', '/contest', {
      token,
      json: {
        name: spec.name,
        mode: spec.mode ?? 'unrated',
        gradingMode: 'classic',
        scoreboardPolicy: spec.scoreboardPolicy,
        timeStart: new Date(start).toISOString(),
        timeEnd: new Date(start + spec.lengthMs).toISOString(),
        announce: spec.announce ?? null,
      },
    }),
    `create ${spec.name}`,
  )) as { id: number };
  if (spec.problemIds?.length) {
    await expectOk(stack.api.call('PUT', `/contest/${contest.id}/problems`, { token, json: spec.problemIds.map((problemId) => ({ problemId })) }), 'add problems');
  }
  return contest.id;
}

/** Adds a shown announcement to a contest. */
export async function announce(stack: WebStack, token: string, contestId: number, value: string): Promise<void> {
  const created = (await expectOk(stack.api.call('POST', `/announcement?contestId=${contestId}`, { token, json: { value } }), 'create announcement')) as { id: number };
  await expectOk(stack.api.call('PATCH', `/announcement/${created.id}`, { token, json: { show: true } }), 'show announcement');
}

/** Nothing wider than the screen: the page never scrolls sideways (tables scroll inside their own box). */
export async function expectNoSidewaysScroll(page: Page, where: string): Promise<void> {
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1), `${where} overflows`).toBe(true);
}

/**
 * Opens `path` in the light and the dark theme and keeps a screenshot of each (`{name}-{theme}-{width}`); the
 * page must not scroll sideways, and at desktop width axe-core must find no WCAG 2 A/AA problem in either.
 * `ready` waits for what the page must show before it is judged.
 */
export async function visitInBothThemes(page: Page, name: string, path: string, ready: (page: Page) => Promise<void>): Promise<void> {
  const width = page.viewportSize()?.width ?? 0;
  for (const theme of ['light', 'dark'] as const) {
    await page.goto(path);
    await page.evaluate((value) => localStorage.setItem('theme', value), theme);
    await page.reload();
    await ready(page);
    await page.waitForLoadState('networkidle');
    expect(await page.evaluate(() => document.documentElement.classList.contains('dark'))).toBe(theme === 'dark');
    await screenshot(page, `${name}-${theme}`);
    await expectNoSidewaysScroll(page, `${path} at ${width} px (${theme})`);
    if (width === 1280) expect(await accessibilityViolations(page), `WCAG A/AA on ${path} (${theme})`).toEqual([]);
  }
  await page.evaluate(() => localStorage.setItem('theme', 'light'));
}
