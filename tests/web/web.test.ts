/**
 * The web app in a real browser (Debian Chromium through playwright-core) against OTOG started as
 * `npm start` starts it: sign up, sign in, browse, submit from a file and from the editor, verdicts arriving
 * without reloads, the submission page, quick search, colour mode, token refresh, the admin creating a
 * problem that a contestant then solves, and screenshots of every page at 1280 and 390 px.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { aplusbZip, solution, tinyPdf } from './fixtures.ts';
import { accessibilityViolations, ADMIN, buddhistYear, collectPageErrors, englishWords, screenshot, signIn, startWebStack, viewport, type WebStack } from './support.ts';

let stack: WebStack;
// Short-lived access tokens: every test below also runs through refreshes, as a long session would.
beforeAll(async () => {
  stack = await startWebStack({ env: { ACCESS_TOKEN_TTL_SECONDS: '10' } });
}, 240_000);
afterAll(async () => stack?.stop(), 60_000);

const suffix = String(Date.now() % 1_000_000);
const contestant = { username: `nakrian_${suffix}`, password: 'secret-pass-1', showName: `นักเรียน ${suffix}` };
const VERDICT_TIMEOUT = 90_000;

interface ProblemRow {
  id: number;
  name: string;
}
/** A shown problem, as anyone sees the table (sign-ins are rate limited: the suite keeps its own few). */
async function problemNamed(prefix: string): Promise<ProblemRow> {
  const { body } = await stack.api.call('GET', '/problem');
  const row = (body as ProblemRow[]).find((problem) => problem.name.startsWith(prefix));
  if (!row) throw new Error(`no problem named ${prefix}*`);
  return row;
}

/** Content names (problems, users) that pages show as data, not interface text. */
async function contentNames(): Promise<string[]> {
  const problems = (await stack.api.call('GET', '/problem')).body as ProblemRow[];
  return [...problems.map((p) => p.name), contestant.username, contestant.showName, ADMIN.username, 'Sample', 'aplusb'];
}

/** Page errors other than the statuses the browser logs for answers we expect (no avatar: 404; expired token: 401; wrong password: 401). */
const unexpected = (errors: readonly string[]) => errors.filter((error) => !/status of (401|404)\b/.test(error));

/** Nothing wider than the screen: the page never scrolls sideways (tables scroll inside their own box). */
async function expectNoSidewaysScroll(page: Page, where: string) {
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1), `${where} overflows`).toBe(true);
}

/**
 * Opens `path` at the page's width and keeps its screenshot; it must not scroll sideways, and at desktop
 * width axe-core must find no WCAG 2 A/AA problem.
 */
async function visit(page: Page, name: string, path: string) {
  await page.goto(path);
  await page.waitForLoadState('networkidle');
  await screenshot(page, name);
  const width = page.viewportSize()?.width ?? 0;
  await expectNoSidewaysScroll(page, `${path} at ${width} px`);
  if (width === 1280) expect(await accessibilityViolations(page), `WCAG A/AA on ${path}`).toEqual([]);
}

async function expectThai(page: Page, where: string) {
  const english = await englishWords(page, await contentNames());
  expect(english, `English interface text on ${where}`).toEqual([]);
}

describe('contestant', () => {
  let page: Page;
  let errors: string[];
  beforeAll(async () => {
    const context = await stack.newContext(1280);
    page = await context.newPage();
    errors = collectPageErrors(page);
  });
  afterEach(async (test) => {
    if (test.task.result?.state === 'fail') await screenshot(page, `failed-${test.task.name.slice(0, 40).replace(/\W+/g, '-')}`).catch(() => {});
  });

  it('shows the Thai landing page with the shell: logo, sections, skip link, footer', async () => {
    await page.goto('/');
    // The first page of a cold stack on a busy machine may take a while.
    await expect.poll(() => page.title(), { timeout: 20_000 }).toContain('OTOG');
    expect(await page.getByRole('link', { name: /OTOG/ }).first().getAttribute('title')).toBe('One Tambon One Grader');
    const nav = page.getByRole('navigation', { name: 'เมนูหลัก' });
    for (const label of ['โจทย์', 'ผลตรวจ', 'แข่งขัน']) await expect.poll(() => nav.getByRole('link', { name: label }).count()).toBe(1);
    expect(await page.locator('a.skip-link').getAttribute('href')).toBe('#content');
    expect(await page.locator('footer').innerText()).toContain('© 2025');
    expect(await page.getByRole('link', { name: 'เข้าสู่ระบบ' }).first().isVisible()).toBe(true);
    for (const width of [1280, 390, 360]) {
      await page.setViewportSize(viewport(width));
      for (const [name, path] of [['home', '/'], ['login', '/login'], ['register', '/register']] as const) {
        await visit(page, name, path);
        await expectThai(page, path);
      }
    }
    await page.setViewportSize(viewport(1280));
  });

  it('colour mode: the toggle switches light/dark/system and survives a reload', async () => {
    const toggle = page.getByRole('button', { name: /^ธีม/ });
    const modes: string[] = [];
    for (let i = 0; i < 3; i++) {
      await toggle.click();
      modes.push((await toggle.getAttribute('data-theme-mode')) ?? '');
    }
    expect(modes).toEqual(['light', 'dark', 'system']);
    await toggle.click();
    await toggle.click(); // dark
    expect(await page.evaluate(() => [localStorage.getItem('theme'), document.documentElement.classList.contains('dark')])).toEqual(['dark', true]);
    await page.reload();
    expect(await page.evaluate(() => document.documentElement.classList.contains('dark'))).toBe(true);
    await screenshot(page, 'home-dark');
    await toggle.click(); // system
    await toggle.click(); // light
  });

  it('registration: Thai messages at the fields and nothing sent when invalid; then an account, signed in', async () => {
    let sent = 0;
    page.on('request', (request) => {
      if (request.url().endsWith('/api/auth/register')) sent++;
    });
    await page.goto('/register');
    await page.getByRole('button', { name: 'ลงทะเบียน' }).click();
    await expect.poll(() => page.getByRole('alert').allInnerTexts()).toEqual(['กรุณากรอกชื่อผู้ใช้', 'กรุณากรอกรหัสผ่าน', 'กรุณากรอกชื่อที่ใช้แสดง']);
    await page.getByLabel('ชื่อผู้ใช้').fill('ชื่อไทย');
    await page.getByLabel('รหัสผ่าน').fill('123');
    await page.getByLabel('ชื่อที่ใช้แสดง').fill(contestant.showName);
    await page.getByRole('button', { name: 'ลงทะเบียน' }).click();
    await expect.poll(() => page.getByRole('alert').count()).toBe(2);
    expect(sent).toBe(0);
    await screenshot(page, 'register-errors');

    await page.getByLabel('ชื่อผู้ใช้').fill(contestant.username);
    await page.getByLabel('รหัสผ่าน').fill(contestant.password);
    await page.getByRole('button', { name: 'ลงทะเบียน' }).click();
    // Registering signs in: the home page, which sends a signed-in user on to the problems.
    await page.waitForURL('**/problem');
    await page.getByRole('button', { name: `เมนูผู้ใช้ ${contestant.showName}` }).waitFor();
    expect(sent).toBe(1);
    // Signed out again, for the sign-in checks that follow.
    await page.getByRole('button', { name: /เมนูผู้ใช้/ }).click();
    await page.getByRole('menuitem', { name: 'ออกจากระบบ' }).click();
    await page.waitForURL('**/login');
    await page.getByRole('heading', { name: 'เข้าสู่ระบบ' }).waitFor();
  });

  it('sign-in: a wrong password says so in Thai; the right one lands on the problems', async () => {
    await page.getByLabel('ชื่อผู้ใช้').fill(contestant.username);
    await page.getByLabel('รหัสผ่าน').fill('wrong-password');
    await page.getByRole('button', { name: 'เข้าสู่ระบบ' }).last().click();
    await page.getByText('ชื่อผู้ใช้ หรือ รหัสผ่าน ไม่ถูกต้อง').waitFor();
    await signIn(page, contestant.username, contestant.password);
    expect(new URL(page.url()).pathname).toBe('/problem');
    await page.getByText('Sample: aplusb').first().waitFor();
    expect(await page.getByRole('link', { name: 'โจทย์' }).first().getAttribute('aria-current')).toBe('page');
  });

  it('quick search: meta+K, type, Enter opens the problem', async () => {
    await page.keyboard.press('Meta+KeyK');
    const box = page.getByRole('dialog').getByRole('combobox');
    await box.waitFor();
    await expect.poll(() => page.getByRole('dialog').getByRole('option').count()).toBe(7);
    await box.fill('aplusb');
    await expect.poll(() => page.getByRole('dialog').getByRole('option').first().innerText()).toContain('aplusb');
    await page.keyboard.press('Enter');
    const aplusb = await problemNamed('Sample: aplusb');
    await page.waitForURL(`**/problem/${aplusb.id}`);
    await page.getByRole('heading', { name: aplusb.name }).waitFor();
    // The sample's statement is embedded (npm start seeds one for each sample problem).
    await page.locator(`embed[src*="/api/problem/doc/${aplusb.id}"]`).waitFor({ state: 'attached' });
  });

  it('submits a file from the problem list; the verdict arrives without a reload', async () => {
    const aplusb = await problemNamed('Sample: aplusb');
    await page.goto('/problem');
    const row = page.locator('[data-problem-id="' + aplusb.id + '"]');
    await row.getByRole('button', { name: /ส่ง/ }).first().click();
    const dialog = page.getByRole('dialog');
    let sent = 0;
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url().includes('/api/submission/problem/')) sent++;
    });
    // A file the judge cannot take is refused at the field, in Thai, before anything is sent.
    await dialog.getByRole('button', { name: 'ส่ง', exact: true }).click();
    await dialog.getByRole('alert').getByText('กรุณาเลือกไฟล์').waitFor();
    await dialog.getByLabel(/ไฟล์/).first().setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('1 2') });
    await dialog.getByRole('alert').getByText(/รองรับเฉพาะไฟล์/).waitFor();
    await dialog.getByLabel(/ไฟล์/).first().setInputFiles({ name: 'big.cpp', mimeType: 'text/x-c++src', buffer: Buffer.alloc(20_000, 'a') });
    await dialog.getByRole('button', { name: 'ส่ง', exact: true }).click();
    await expect.poll(() => dialog.getByRole('alert').innerText()).toMatch(/ขนาด|ใหญ่/);
    expect(sent).toBe(0);
    await screenshot(page, 'submit-dialog-error');
    await dialog.getByLabel(/ไฟล์/).first().setInputFiles({ name: 'main.cpp', mimeType: 'text/x-c++src', buffer: Buffer.from(solution('accept.cpp')) });
    await dialog.getByRole('button', { name: 'ส่ง', exact: true }).click();
    await page.waitForURL('**/submission?all=false');
    const document = await page.evaluate(() => performance.timeOrigin);
    const newest = page.locator('main tbody tr').first();
    await expect.poll(() => newest.innerText(), { timeout: VERDICT_TIMEOUT }).toContain('100 / 100');
    // The same document all along: the verdict arrived without a reload.
    expect(await page.evaluate(() => performance.timeOrigin)).toBe(document);
  });

  it('submits from the editor in C++ and in Python, verdicts in the submissions tab', async () => {
    const aplusb = await problemNamed('Sample: aplusb');
    for (const [language, label, source, verdict] of [
      // The verdict in words: what went wrong, not only that it failed.
      ['cpp', 'C++', solution('wrong.cpp'), 'คำตอบผิด'],
      ['python', 'Python', solution('accept.py'), 'ผ่าน'],
    ] as const) {
      await page.goto(`/problem/${aplusb.id}?tab=editor`);
      const editor = page.locator('.cm-content');
      await editor.waitFor();
      await page.getByLabel('ภาษา').selectOption(language);
      await editor.click();
      await page.keyboard.press('ControlOrMeta+A');
      await page.keyboard.press('Delete');
      // CodeMirror auto-indents typed text: insert the source as one paste-like input instead.
      await page.keyboard.insertText(source);
      await page.getByRole('button', { name: 'ส่ง', exact: true }).click();
      await page.waitForURL(/tab=submissions/);
      const newest = page.getByRole('tabpanel').locator('tbody tr').first();
      await newest.getByText(verdict, { exact: true }).waitFor({ timeout: VERDICT_TIMEOUT });
      expect(label).toBeTruthy();
    }
    await screenshot(page, 'problem-submissions-tab');
  });

  it('opens a submission: highlighted code, subtask verdicts, share toggle', async () => {
    await page.goto('/submission?all=false');
    await page.getByRole('link', { name: /รายละเอียด|ดู/ }).first().click();
    await page.waitForURL(/\/submission\/\d+/);
    await page.locator('pre code, pre').first().waitFor();
    expect(await page.locator('pre .token').count()).toBeGreaterThan(0);
    await page.getByText('ปัญหาย่อยที่ 1').first().click();
    await page.getByText(/Accepted/).first().waitFor();
    const share = page.getByRole('button', { name: /แชร์/ });
    const before = await share.getAttribute('aria-pressed');
    await share.click();
    await expect.poll(() => share.getAttribute('aria-pressed')).not.toBe(before);
    expect(await page.locator('body').innerText()).toContain(buddhistYear());
    await screenshot(page, 'submission-detail');
  });

  it('an expired access token is refreshed once while the other requests wait, then they succeed', async () => {
    let refreshes = 0;
    const failures: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/api/auth/refresh/token')) refreshes++;
    });
    page.on('response', (response) => {
      // (A 404 for an avatar is how the API says "no photo": the fallback shows.)
      if (response.url().includes('/api/') && !response.url().includes('/api/images/') && response.status() >= 400 && response.status() !== 401) failures.push(`${response.status()} ${response.url()}`);
    });
    await page.waitForTimeout(11_000); // the 10 s token expires
    await page.goto('/submission?all=false');
    await page.getByText('ผ่านแล้ว').first().waitFor();
    expect(refreshes).toBe(1);
    expect(failures, failures.join('\n')).toEqual([]);
    expect(new URL(page.url()).pathname).toBe('/submission');
  });

  it("an answer that does not match its contract says 'Client parsing failed'", async () => {
    await page.route('**/api/problem', (route) => route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify([{ id: 'not a number' }]) }));
    await page.goto('/problem');
    await page.getByText('Client parsing failed').first().waitFor();
    await page.unroute('**/api/problem');
    // The client logs what did not match; that error was the point here.
    expect(unexpected(errors.splice(0)).filter((error) => !error.includes('Client parsing failed'))).toEqual([]);
  });

  // 27 pages, each read and checked for accessibility at two widths: minutes on a busy 2-core machine.
  it('pages are in Thai with Buddhist-era dates; screenshots at 1280 and 390 px', async () => {
    const aplusb = await problemNamed('Sample: aplusb');
    const submissionHref = await (async () => {
      await page.goto('/submission?all=false');
      return page.getByRole('link', { name: /รายละเอียด|ดู/ }).first().getAttribute('href');
    })();
    const me = (await stack.api.call('GET', '/submission?limit=1')).body as Array<{ userId: number }>;
    const pages: Array<[string, string]> = [
      ['home-signed-in', '/'],
      ['problems', '/problem'],
      ['problem', `/problem/${aplusb.id}`],
      ['problem-editor', `/problem/${aplusb.id}?tab=editor`],
      ['submissions', '/submission?all=false'],
      ['submission', submissionHref ?? '/submission'],
      ['contest', '/contest'],
      ['profile', `/user/${me[0]?.userId ?? 1}`],
      ['not-found', '/no-such-page'],
    ];
    for (const width of [1280, 390, 360]) {
      await page.setViewportSize(viewport(width));
      for (const [name, path] of pages) {
        await visit(page, name, path);
        await expectThai(page, path);
        // Contrast and names in dark mode too (axe-core, WCAG 2 A and AA).
        if (width === 390) {
          await page.evaluate(() => localStorage.setItem('theme', 'dark'));
          await page.reload();
          await page.waitForLoadState('networkidle');
          expect(await page.evaluate(() => document.documentElement.classList.contains('dark'))).toBe(true);
          expect(await accessibilityViolations(page), `WCAG A/AA on ${path} in dark mode`).toEqual([]);
          await page.evaluate(() => localStorage.setItem('theme', 'light'));
        }
      }
    }
    await page.goto('/submission?all=false');
    await page.waitForLoadState('networkidle');
    expect(await page.locator('main').innerText()).toMatch(new RegExp(`/${buddhistYear().slice(2)} \\d{2}:\\d{2}`));
    await page.setViewportSize(viewport(1280));
  }, 180_000);

  it('the side menu on a small screen closes when a section is chosen', async () => {
    await page.setViewportSize(viewport(390));
    await page.goto('/problem');
    await page.getByRole('button', { name: 'เปิดเมนู' }).click();
    await page.getByRole('navigation', { name: 'เมนูหลัก' }).getByRole('link', { name: 'ผลตรวจ' }).click();
    await page.waitForURL('**/submission');
    expect(await page.locator('.sidemenu').count()).toBe(0);
    await page.setViewportSize(viewport(1280));
  });

  it('a session whose refresh fails ends: back to sign-in, the cookie and the cached data gone', async () => {
    const context = await stack.newContext(1280);
    const other = await context.newPage();
    await signIn(other, contestant.username, contestant.password);
    await other.goto('/submission?all=false');
    await other.locator('main tbody tr').first().waitFor();
    // The refresh token is gone (another device logged out, or it expired) and the access token expires.
    await context.clearCookies({ name: 'RID' });
    await other.waitForTimeout(11_000);
    await other.goto('/problem');
    await other.waitForURL('**/login');
    // (The URL changes before React commits the signed-out page.)
    await other.getByRole('heading', { name: 'เข้าสู่ระบบ' }).waitFor();
    expect(await other.evaluate(() => document.cookie.includes('accessToken='))).toBe(false);
    expect(await other.getByRole('button', { name: /เมนูผู้ใช้/ }).count()).toBe(0);
    await context.close();
  });

  it('a new show name is checked at the field, saved, and shown in the user menu at once', async () => {
    const me = (await stack.api.call('GET', '/submission?limit=1')).body as Array<{ userId: number }>;
    await page.goto(`/user/${me[0]!.userId}`);
    const field = page.getByLabel('ชื่อที่แสดง');
    await field.fill('   ');
    await page.getByRole('button', { name: 'บันทึกชื่อ' }).click();
    await page.getByRole('alert').first().waitFor();
    const renamed = `${contestant.showName} ใหม่`;
    await field.fill(renamed);
    await page.getByRole('button', { name: 'บันทึกชื่อ' }).click();
    await page.getByRole('heading', { name: renamed }).waitFor();
    await page.getByRole('button', { name: /เมนูผู้ใช้/ }).click();
    await expect.poll(() => page.locator('.menu-name').innerText()).toBe(renamed);
    await page.keyboard.press('Escape');
  });

  it('logout goes to /login and forgets the session', async () => {
    await page.goto('/problem');
    await page.getByRole('button', { name: /เมนูผู้ใช้/ }).click();
    await page.getByRole('menuitem', { name: 'ออกจากระบบ' }).click();
    await page.waitForURL('**/login');
    expect(await page.evaluate(() => document.cookie.includes('accessToken='))).toBe(false);
    await page.goto('/submission');
    expect(await page.getByRole('button', { name: /เมนูผู้ใช้/ }).count()).toBe(0);
    expect(unexpected(errors)).toEqual([]);
  });
});

describe('admin', () => {
  it('creates a problem with a PDF and a zip (bad input refused at the field), shows it, and a contestant solves it', async () => {
    const context = await stack.newContext(1280);
    const page = await context.newPage();
    await signIn(page, ADMIN.username, ADMIN.password);
    await page.getByRole('button', { name: /เมนูผู้ใช้/ }).click();
    await page.locator('.menu-admin-link').click();
    await page.waitForURL('**/admin');

    await page.getByRole('button', { name: 'เพิ่ม' }).click();
    const form = page.getByRole('dialog');
    let sent = 0;
    page.on('request', (request) => {
      if (request.method() === 'POST' && new URL(request.url()).pathname === '/api/problem') sent++;
    });
    await form.getByRole('button', { name: /เพิ่มโจทย์|บันทึก/ }).click();
    await expect.poll(() => form.getByRole('alert').count()).toBeGreaterThan(2);
    expect(sent).toBe(0);
    await screenshot(page, 'admin-problem-form-errors');

    const name = `บวกเลข ${suffix}`;
    await form.getByLabel('ชื่อโจทย์').fill(name);
    await form.getByLabel('ชื่อเล่น').fill(`add${suffix}`);
    await form.getByLabel('คะแนน').fill('100');
    await form.getByLabel(/เวลา/).fill('1');
    await form.getByLabel(/หน่วยความจำ/).fill('256');
    await form.locator('input[type=file][name=pdf]').setInputFiles({ name: 'statement.pdf', mimeType: 'application/pdf', buffer: tinyPdf('a + b') });
    // A zip whose tests lack answers is refused by the server; the admin sees why under the field.
    const { zipSync } = await import('fflate');
    const broken = Buffer.from(zipSync({ '1.in': new TextEncoder().encode('1 2\n') }));
    await form.locator('input[type=file][name=zip]').setInputFiles({ name: 'tests.zip', mimeType: 'application/zip', buffer: broken });
    await form.getByRole('button', { name: /เพิ่มโจทย์|บันทึก/ }).click();
    await expect.poll(async () => (await form.innerText()).includes('1.sol')).toBe(true);
    await form.locator('input[type=file][name=zip]').setInputFiles({ name: 'tests.zip', mimeType: 'application/zip', buffer: aplusbZip() });
    await form.getByRole('button', { name: /เพิ่มโจทย์|บันทึก/ }).click();
    await form.waitFor({ state: 'detached' });

    const row = page.locator('tr', { hasText: name });
    await row.getByRole('button', { name: /กดเพื่อเปิดโจทย์/ }).click();
    await expect.poll(async () => (await stack.api.call('GET', '/problem')).body as ProblemRow[]).toEqual(expect.arrayContaining([expect.objectContaining({ name })]));

    const solver = await stack.newContext(390);
    const phone = await solver.newPage();
    const student = { username: `solver_${suffix}`, password: 'solver-pass-1' };
    await stack.api.register(student.username, student.password, `ผู้แก้โจทย์ ${suffix}`);
    await signIn(phone, student.username, student.password);
    const problem = await problemNamed(name);
    await phone.goto(`/problem/${problem.id}`);
    await phone.locator(`embed[src*="/api/problem/doc/${problem.id}"]`).waitFor({ state: 'attached' });
    await screenshot(phone, 'new-problem');
    await phone.goto(`/problem/${problem.id}?tab=editor`);
    await phone.locator('.cm-content').click();
    await phone.keyboard.press('ControlOrMeta+A');
    await phone.keyboard.press('Delete');
    await phone.getByLabel('ภาษา').selectOption('c');
    await phone.keyboard.insertText(solution('accept.c'));
    await phone.getByRole('button', { name: 'ส่ง', exact: true }).click();
    await phone.waitForURL(/tab=submissions/);
    await phone.getByRole('tabpanel').locator('tbody tr').first().getByText('ผ่าน', { exact: true }).waitFor({ timeout: VERDICT_TIMEOUT });
    await solver.close();

    // Rejudging the problem through the row menu, then its confirmation.
    await row.getByRole('button', { name: `ตัวเลือกของโจทย์ ${name}` }).click();
    await page.getByRole('menuitem', { name: 'ตรวจข้อนี้ใหม่' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'ตรวจข้อนี้ใหม่' }).click();
    await page.getByText('กำลังตรวจใหม่ 1 รายการ').first().waitFor();

    for (const width of [1280, 390]) {
      await page.setViewportSize(viewport(width));
      for (const [name, path] of [['admin-problems', '/admin'], ['admin-users', '/admin/user'], ['admin-announcements', '/admin/announcement']] as const) {
        await visit(page, name, path);
      }
    }
    await context.close();
  }, 180_000);
});
