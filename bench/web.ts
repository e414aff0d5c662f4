/**
 * The web app (issue 5): the JavaScript the /problem page loads (gzip, as a compressing proxy would send it),
 * the time until its problem table is on screen and usable, and scrolling that table with 10,000 problems
 * (frame times while scrolling, rows in the DOM). The API with the built app runs in this process
 * (bench/lib/api-stack.ts); Debian Chromium is driven by playwright-core on the same two cores.
 */
import { sql } from '@otog/platform/db/pool';
import { chromiumMissing, jsFileOf, launchBrowser, WEB_DIST, type JsFile } from './lib/browser.ts';
import type { BenchContext } from './lib/context.ts';
import { startBenchApiStack } from './lib/api-stack.ts';
import type { BenchResult, Figure, Table } from './lib/report.ts';
import { int, ms, summarize } from './lib/stats.ts';

const TITLE = 'Web app: bundle size, time to a usable problem table, scrolling 10,000 problems';
const JS_TARGET = { op: '<=' as const, value: 200, text: '≤ 200 KB gzip (our budget; the issue sets none)' };
const INTERACTIVE_TARGET = { op: '<' as const, value: 1_500, text: '< 1.5 s (our budget)' };
const FRAME_TARGET = { op: '<=' as const, value: 33.5, text: 'p95 ≤ 2 display frames at 60 Hz (33.4 ms, ≥ 30 fps) while scrolling' };

interface PageLoad {
  /** Requested before the table was usable: what the page needs. */
  readonly jsFiles: readonly JsFile[];
  /** Requested afterwards: the other everyday pages, prefetched while idle. */
  readonly prefetched: readonly JsFile[];
  /** ms from navigation start until the table's first row is in the DOM and the page answers input. */
  readonly interactiveMs: number;
  readonly domContentLoadedMs: number;
}

export async function benchWeb(context: BenchContext): Promise<BenchResult> {
  const missing = chromiumMissing('web', TITLE);
  if (missing) return missing;
  const problemCount = context.quick ? 1_000 : 10_000;
  const loads = context.quick ? 3 : 7;
  const stack = await startBenchApiStack(context.adminUrl, { web: { distDir: WEB_DIST, config: { offline: false } } });
  const browser = await launchBrowser();
  try {
    const [admin] = await stack.createUsers(1, 'admin', 'bench_web_admin_');
    const [user] = await stack.createUsers(1, 'user', 'bench_web_user_');
    if (!admin || !user) throw new Error('accounts not created');
    await stack.seedProblems(problemCount, admin, { perTransaction: 500, writers: 2 });
    await stack.waitForCatchUp(600_000);
    await stack.db.pool.query(sql.unsafe`VACUUM ANALYZE`);

    const browserContext = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'th-TH' });
    await browserContext.addCookies([{ name: 'accessToken', value: user.token, url: stack.url }]);

    const measureLoad = async (): Promise<PageLoad> => {
      const page = await browserContext.newPage();
      const jsFiles: JsFile[] = [];
      const prefetched: JsFile[] = [];
      let usable = false;
      page.on('request', (request) => {
        const url = new URL(request.url());
        if (url.pathname.endsWith('.js')) {
          (usable ? prefetched : jsFiles).push(jsFileOf(url.pathname));
        }
      });
      await page.goto(`${stack.url}/problem`, { waitUntil: 'commit' });
      await page.locator('[data-problem-id]').first().waitFor({ timeout: 60_000 });
      // Interactive: a task queued now runs only once the main thread is free.
      // (Browser code as strings: this program is typed for Node, not the DOM.)
      const interactiveMs = await page.evaluate<number>('new Promise((resolve) => setTimeout(() => resolve(performance.now()), 0))');
      usable = true;
      await page.waitForTimeout(4_000); // the prefetch once the page's requests are done
      const domContentLoadedMs = await page.evaluate<number>("performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd");
      await page.close();
      return { jsFiles, prefetched, interactiveMs, domContentLoadedMs };
    };

    const first = await measureLoad();
    const runs: PageLoad[] = [];
    for (let i = 0; i < loads; i++) runs.push(await measureLoad());
    const interactive = summarize([...runs.map((run) => run.interactiveMs)].sort((a, b) => a - b));
    const jsGzipKb = first.jsFiles.reduce((sum, file) => sum + file.gzip, 0) / 1024;
    const jsRawKb = first.jsFiles.reduce((sum, file) => sum + file.bytes, 0) / 1024;

    // Scrolling: wheel steps through the whole table; frame times from requestAnimationFrame.
    const page = await browserContext.newPage();
    await page.goto(`${stack.url}/problem`);
    await page.locator('[data-problem-id]').first().waitFor({ timeout: 60_000 });
    const rowsInDom = await page.locator('[data-problem-id]').count();
    await page.evaluate(`(() => {
      window.__frames = [];
      let last = performance.now();
      const tick = (now) => {
        window.__frames.push(now - last);
        last = now;
        requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    })()`);
    const scrollSteps = 120;
    for (let i = 0; i < scrollSteps; i++) {
      await page.mouse.wheel(0, 2_400);
      await page.waitForTimeout(16);
    }
    const frames = await page.evaluate<number[]>('window.__frames.slice(1)');
    const scrolledTo = await page.evaluate<number>('window.scrollY');
    const lastVisibleId = await page.locator('[data-problem-id]').last().getAttribute('data-problem-id');
    const rowsInDomAfter = await page.locator('[data-problem-id]').count();
    await page.close();
    const sortedFrames = [...frames].sort((a, b) => a - b);
    const p95 = sortedFrames[Math.floor(0.95 * (sortedFrames.length - 1))] ?? 0;
    const longFrames = frames.filter((frame) => frame > 50).length;

    const figures: Figure[] = [
      { name: 'JavaScript loaded by /problem (gzip -9)', value: jsGzipKb, unit: 'KB', display: `${jsGzipKb.toFixed(1)} KB (${jsRawKb.toFixed(0)} KB raw, ${first.jsFiles.length} files)`, target: JS_TARGET },
      { name: `/problem: navigation → problem table usable, ${int(problemCount)} problems, median of ${loads}`, value: interactive.p50, unit: 'ms', display: `${ms(interactive.p50)} ms (max ${ms(interactive.max)} ms)`, target: INTERACTIVE_TARGET },
      { name: `scrolling the ${int(problemCount)}-problem table: frame time p95`, value: p95, unit: 'ms', display: `${ms(p95)} ms (${longFrames} of ${frames.length} frames over 50 ms)`, target: FRAME_TARGET },
    ];
    const filesTable: Table = {
      title: 'JavaScript files /problem loads (first visit): before the table is usable, then prefetched while idle',
      header: ['file', 'when', 'bytes', 'gzip -9'],
      rows: [
        ...first.jsFiles.map((file) => [`\`${file.name}\``, 'initial', int(file.bytes), int(file.gzip)]),
        ...first.prefetched.map((file) => [`\`${file.name}\``, 'prefetched', int(file.bytes), int(file.gzip)]),
      ],
    };
    const loadTable: Table = {
      title: `/problem loads with a warm HTTP cache (${loads} runs, signed in as a contestant, ${int(problemCount)} problems)`,
      header: ['run', 'DOMContentLoaded', 'table usable'],
      rows: runs.map((run, i) => [String(i + 1), `${ms(run.domContentLoadedMs)} ms`, `${ms(run.interactiveMs)} ms`]),
    };
    const scrollTable: Table = {
      title: `Scrolling: ${scrollSteps} wheel steps of 2,400 px`,
      header: ['rows in the DOM at the top', 'rows in the DOM after scrolling', 'scrolled to', 'last row in the DOM', 'frames', 'frame p50', 'frame p95', 'max', 'frames > 50 ms'],
      rows: [[int(rowsInDom), int(rowsInDomAfter), `${int(scrolledTo)} px`, `#${lastVisibleId ?? '?'}`, int(frames.length), `${ms(summarize(sortedFrames).p50)} ms`, `${ms(p95)} ms`, `${ms(summarize(sortedFrames).max)} ms`, int(longFrames)]],
    };
    return {
      id: 'web',
      title: TITLE,
      method: [
        'The API and the built web app (web/dist, `npm run build`) served by `buildApp` as `npm start` does, in the bench process; Debian Chromium (headless, playwright-core) on the same 2 cores.',
        `${int(problemCount)} shown problems seeded as events; a contestant's access token set as the \`accessToken\` cookie.`,
        'Initial JavaScript: every .js file the first visit to /problem requested before its table was usable, compressed here with gzip -9 (the server sends them uncompressed; a production proxy compresses). Files requested afterwards (the everyday pages, prefetched while idle) are listed apart.',
        '“Table usable”: from navigation start until the first table row is in the DOM and a zero-delay task runs (the main thread is free to answer input), measured in the page.',
        'Scrolling: mouse-wheel steps with 16 ms pauses while requestAnimationFrame records every frame interval.',
      ],
      figures,
      tables: [filesTable, loadTable, scrollTable],
      notes: [],
    };
  } finally {
    await browser.close();
    await stack.stop();
  }
}
