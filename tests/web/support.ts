/**
 * The browser suites' stack: OTOG started the way `npm start` starts it (embedded Postgres, seeded admin and
 * sample problems, the built-in judge worker, the built web app at /) in a temporary data directory, and
 * Debian's Chromium driven by playwright-core. Screenshots go to .test-artifacts/screenshots.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, errors, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { freePort } from '../support/local-services.ts';
import { isAlive, postmasterOf, root, startOtog, type OtogProcess } from '../e2e/otog-process.ts';

export const ADMIN = { username: 'admin', password: 'admin-password-for-tests' } as const;
export const SCREENSHOTS = join(root, '.test-artifacts', 'screenshots');
export const CHROMIUM = '/usr/bin/chromium';

/** Builds web/dist when its inputs changed (what `npm start`'s prestart does). */
export function buildWebApp(): void {
  execFileSync(process.execPath, [join(root, 'web/scripts/build.ts'), '--if-stale'], { cwd: root, stdio: 'inherit' });
}

export interface WebStack {
  readonly url: string;
  readonly otog: OtogProcess;
  /** OTOG_DATA_DIR of the running OTOG (its embedded Postgres lives there: databaseUrlOf). */
  readonly dataDir: string;
  readonly browser: Browser;
  /** A fresh browser profile (no cookies, no storage) at a viewport width. */
  newContext(width?: number): Promise<BrowserContext>;
  api: ApiClient;
  stop(): Promise<void>;
}

export interface ApiClient {
  call(method: string, path: string, options?: { token?: string; json?: unknown; form?: FormData }): Promise<{ status: number; body: unknown }>;
  login(username: string, password: string): Promise<{ token: string; user: { id: number } }>;
  register(username: string, password: string, showName: string): Promise<void>;
}

function apiClient(url: string): ApiClient {
  const client: ApiClient = {
    async call(method, path, options = {}) {
      const response = await fetch(`${url}/api${path}`, {
        method,
        headers: {
          ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
          ...(options.json === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(options.json === undefined ? (options.form ? { body: options.form } : {}) : { body: JSON.stringify(options.json) }),
      });
      const text = await response.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON
      }
      return { status: response.status, body };
    },
    async login(username, password) {
      const { status, body } = await client.call('POST', '/auth/login', { json: { username, password } });
      if (status !== 200) throw new Error(`login ${username}: ${status} ${JSON.stringify(body)}`);
      const session = body as { accessToken: string; user: { id: number } };
      return { token: session.accessToken, user: session.user };
    },
    async register(username, password, showName) {
      const { status, body } = await client.call('POST', '/auth/register', { json: { username, password, showName } });
      if (status !== 201) throw new Error(`register ${username}: ${status} ${JSON.stringify(body)}`);
    },
  };
  return client;
}

/** A phone-shaped or desktop-shaped viewport of `width` px. */
export const viewport = (width: number) => ({ width, height: width < 600 ? 844 : 900 });

export async function startWebStack(options: { env?: Record<string, string> } = {}): Promise<WebStack> {
  buildWebApp();
  mkdirSync(SCREENSHOTS, { recursive: true });
  const scratch = mkdtempSync(join(tmpdir(), 'otog-web-'));
  // The embedded Postgres runs as `postgres` when we are root: it must enter the data directory.
  chmodSync(scratch, 0o755);
  const port = await freePort();
  const otog = await startOtog(
    {
      OTOG_DATA_DIR: join(scratch, 'data'),
      PORT: String(port),
      OTOG_ADMIN_USERNAME: ADMIN.username,
      OTOG_ADMIN_PASSWORD: ADMIN.password,
      ...options.env,
    },
    180_000,
  );
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium (infra/scripts/ensure-packages.sh does)`);
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    otog,
    dataDir: join(scratch, 'data'),
    browser,
    api: apiClient(url),
    newContext: (width = 1280) =>
      browser.newContext({ viewport: viewport(width), locale: 'th-TH', timezoneId: 'Asia/Bangkok', baseURL: url }),
    async stop() {
      await browser.close().catch(() => {});
      await otog.stop();
      const clusterDir = join(scratch, 'data', 'postgres');
      if (existsSync(join(clusterDir, 'postmaster.pid'))) {
        const { pid } = postmasterOf(clusterDir);
        if (isAlive(pid)) process.kill(pid, 'SIGQUIT');
      }
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}

/**
 * The URL of the embedded Postgres that OTOG started in `dataDir` (the port it runs on, the password it
 * generated), for a suite that appends events as another process would (a judge's verdict, say).
 */
export function databaseUrlOf(dataDir: string): string {
  const { port } = postmasterOf(join(dataDir, 'postgres'));
  const password = readFileSync(join(dataDir, 'postgres.password'), 'utf8').trim();
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/otog`;
}

/**
 * A full-page screenshot at the page's current width: `<name>-<width>.png`. Chromium on a loaded CI machine
 * has once left a capture unanswered for 30 s (a CI run of the admin status page): a capture that times out
 * is tried once more.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  const width = page.viewportSize()?.width ?? 0;
  const take = (timeout: number) => page.screenshot({ path: join(SCREENSHOTS, `${name}-${width}.png`), fullPage: true, timeout });
  await take(15_000).catch((error: unknown) => {
    if (!(error instanceof errors.TimeoutError)) throw error;
    return take(20_000);
  });
}

/** Signs in through the /login form and waits for the redirect. */
export async function signIn(page: Page, username: string, password: string): Promise<void> {
  await page.goto('/login');
  await page.getByRole('heading', { name: 'เข้าสู่ระบบ' }).waitFor();
  await page.getByLabel('ชื่อผู้ใช้').fill(username);
  await page.getByLabel('รหัสผ่าน').fill(password);
  await page.getByRole('button', { name: 'เข้าสู่ระบบ' }).last().click();
  await page.waitForURL((url) => url.pathname !== '/login', { timeout: 20_000 });
}

/** Errors the page logged (uncaught exceptions and console errors), to assert on at the end of a test. */
export function collectPageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console: ${message.text()}`);
  });
  return errors;
}

/**
 * English words left in what a contestant reads: the visible text minus code, inputs and content that is
 * data rather than interface (problem and user names), minus product and verdict names OTOG keeps in English.
 */
export async function englishWords(page: Page, content: readonly string[]): Promise<string[]> {
  const text = await page.evaluate(() => {
    const clone = document.body.cloneNode(true) as HTMLElement;
    for (const element of clone.querySelectorAll('pre, code, kbd, .cm-editor, script, style, textarea, input, select, [aria-hidden="true"], .sr-only')) element.remove();
    return clone.innerText;
  });
  let rest = text;
  for (const value of [...content].sort((a, b) => b.length - a.length)) if (value) rest = rest.split(value).join(' ');
  const allowed = new Set(
    [
      'OTOG', 'One', 'Tambon', 'Grader', 'C', 'C++', 'Python', 'PDF', 'ZIP', 'MB', 'kB', 'KB', 'Phakphum', 'Dev', 'Team', 'Input', 'Output', 'K',
      'Accepted', 'Partially', 'Correct', 'Wrong', 'Answer', 'Time', 'Limit', 'Exceeded', 'Runtime', 'Error', 'Skipped', 'Problem', 'Internal',
      'Memory', 'Compilation', 'Judge', 'jpg', 'jpeg', 'png', 'webp',
    ].map((word) => word.toLowerCase()),
  );
  const words: string[] = rest.match(/[A-Za-z][A-Za-z+]*/g) ?? [];
  return [...new Set(words)].filter((word) => !allowed.has(word.toLowerCase()));
}

const AXE = join(root, 'node_modules/axe-core/axe.min.js');

/**
 * WCAG 2 A and AA problems axe-core finds on the page as it is now (contrast, names, labels, roles...),
 * one line each: rule, element, why.
 */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  // Evaluated, not added as a <script>: the page's Content-Security-Policy refuses inline scripts.
  await page.evaluate(readFileSync(AXE, 'utf8'));
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: Array<{ id: string; nodes: Array<{ target: string[]; failureSummary?: string }> }> }> } }).axe;
    const result = await axe.run(document, { runOnly: ['wcag2a', 'wcag2aa'] });
    return result.violations.flatMap((violation) => violation.nodes.map((node) => `${violation.id}: ${node.target.join(' ')} — ${(node.failureSummary ?? '').replace(/\s+/g, ' ').slice(0, 160)}`));
  });
}

/** A two-digit Buddhist-era year as dates show it (2026 → "69"), for "dates are BE" checks. */
export const buddhistYear = (date = new Date()) => String(date.getFullYear() + 543);
