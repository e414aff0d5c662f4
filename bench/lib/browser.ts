/** What the web app's benches share: the built app, Debian's Chromium, and the size of the JS a page asks for. */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import type { BenchResult } from './report.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
export const WEB_DIST = join(root, 'web/dist');
const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

export interface JsFile {
  readonly name: string;
  readonly bytes: number;
  readonly gzip: number;
}

/** The result of a browser bench on a machine without Chromium; undefined when it is there. */
export function chromiumMissing(id: string, title: string): BenchResult | undefined {
  if (existsSync(CHROMIUM)) return undefined;
  return { id, title, method: [], figures: [], tables: [], notes: [`**Not measured:** ${CHROMIUM} is missing (apt-get install chromium).`] };
}

/** Builds web/dist when its inputs changed, as `npm start` does. */
function buildWebIfStale(): void {
  execFileSync(process.execPath, [join(root, 'web/scripts/build.ts'), '--if-stale'], { stdio: 'inherit' });
}

/** Builds web/dist when stale, then starts headless Chromium. */
export function launchBrowser(): Promise<Browser> {
  buildWebIfStale();
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}

/**
 * A normal browser profile in a new directory, as a returning visitor's browser is. Chromium reuses the
 * app's compiled code across visits there, not in the incognito contexts `browser.newContext()` makes: back
 * to back on 2026-11-28 a scoreboard was usable after 1.06 s here against 1.73 s there (medians of 7 and 6 loads).
 */
export async function launchProfile(options: BrowserContextOptions): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  buildWebIfStale();
  const dir = mkdtempSync(join(tmpdir(), 'otog-bench-profile-'));
  const context = await chromium.launchPersistentContext(dir, { ...options, executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS }).catch((error: unknown) => {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A built file the page asked for, with its size raw and as a compressing proxy would send it (gzip -9). */
export function jsFileOf(pathname: string): JsFile {
  const file = join(WEB_DIST, pathname);
  const bytes = existsSync(file) ? readFileSync(file) : Buffer.alloc(0);
  return { name: pathname, bytes: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
}

export interface MainThreadSplit {
  readonly task: number;
  readonly script: number;
  readonly style: number;
  readonly layout: number;
}

/** Main-thread milliseconds `run` cost the page, split as Chromium counts them (Performance.getMetrics). */
export async function mainThreadSplit(page: Page, run: () => Promise<void>): Promise<MainThreadSplit> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable');
  const read = async () => {
    const { metrics } = await cdp.send('Performance.getMetrics');
    const value = (name: string) => (metrics.find((metric) => metric.name === name)?.value ?? 0) * 1000;
    return { task: value('TaskDuration'), script: value('ScriptDuration'), style: value('RecalcStyleDuration'), layout: value('LayoutDuration') };
  };
  const before = await read();
  await run();
  const after = await read();
  await cdp.detach();
  return { task: after.task - before.task, script: after.script - before.script, style: after.style - before.style, layout: after.layout - before.layout };
}
