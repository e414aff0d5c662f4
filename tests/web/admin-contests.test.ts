/**
 * The admin's contest screens and the projections' status page in a real browser against OTOG started as
 * `npm start` starts it: creating a contest with the Thai date-time pickers (an end before the start
 * refused at the field), editing it, choosing its problems, signing a user up, a contest announcement,
 * search and paging of the list, the status page, and deleting a contest. Every result is checked through
 * the API too. Screenshots of every new page and dialog at 1280 and 390 px in light and dark; axe-core at
 * 1280 in both.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { allProjections } from '@otog/projections';
import { checkContest, newContestValues, readServerErrors, type ContestValues } from '../../web/src/features/admin/contest-form.ts';
import { accessibilityViolations, ADMIN, buddhistYear, englishWords, screenshot, signIn, startWebStack, viewport, type WebStack } from './support.ts';

let stack: WebStack;
let adminToken: string;
let page: Page;

const suffix = String(Date.now() % 1_000_000);
const contestName = `ทดสอบแข่ง ${suffix}`;
const renamed = `${contestName} (แก้ไข)`;
const contestant = { username: `khaeng_${suffix}`, password: 'contest-pass-1', showName: `ผู้แข่ง ${suffix}` };
/** Names the pages show as data, and the setting names OTOG's admin keeps in English. */
const CONTENT = ['Sample', 'aplusb', 'five-subtask', 'ACM', 'Classic', 'Best Submission', 'Best Subtask', 'Rated', 'Unrated', ADMIN.username];

/** Two days from now in Bangkok (the browser's zone): 'YYYY-MM-DD'. */
const contestDay = new Intl.DateTimeFormat('en-CA', { timeZone: 'Asia/Bangkok' }).format(new Date(Date.now() + 2 * 86_400_000));
/** A Bangkok wall-clock time on contestDay as an instant (Bangkok is UTC+7 all year). */
const bangkok = (time: string) => new Date(`${contestDay}T${time}:00+07:00`).toISOString();

beforeAll(async () => {
  stack = await startWebStack();
  adminToken = (await stack.api.login(ADMIN.username, ADMIN.password)).token;
  await stack.api.register(contestant.username, contestant.password, contestant.showName);
  const context = await stack.newContext(1280);
  page = await context.newPage();
  await signIn(page, ADMIN.username, ADMIN.password);
}, 240_000);
afterAll(async () => stack?.stop(), 60_000);

async function api<T>(method: string, path: string, json?: unknown): Promise<{ status: number; body: T }> {
  const answer = await stack.api.call(method, path, { token: adminToken, ...(json === undefined ? {} : { json }) });
  return answer as { status: number; body: T };
}

interface ContestRow {
  id: number;
  name: string;
  mode: string;
  gradingMode: string;
  scoreboardPolicy: string;
  timeStart: string;
  timeEnd: string;
  freezeAt?: string | null;
}
async function contestNamed(name: string): Promise<ContestRow> {
  const { body } = await api<{ data: ContestRow[] }>('GET', `/contest/admin/list?search=${encodeURIComponent(name)}`);
  const row = body.data.find((contest) => contest.name === name);
  if (!row) throw new Error(`no contest named ${name}`);
  return row;
}

async function setDark(dark: boolean): Promise<void> {
  // What index.html does before paint for the stored choice; no reload, so an open dialog stays open.
  await page.evaluate((on) => {
    localStorage.setItem('theme', on ? 'dark' : 'light');
    document.documentElement.classList.toggle('dark', on);
  }, dark);
}

/**
 * The page as it is now (a dialog open, perhaps) at 1280 and 390 px, light and dark: a screenshot each,
 * no sideways scroll, no axe-core WCAG A/AA problem at 1280, and no English interface words.
 */
async function capture(name: string, content: readonly string[] = []): Promise<void> {
  for (const dark of [false, true]) {
    await setDark(dark);
    for (const width of [1280, 390]) {
      await page.setViewportSize(viewport(width));
      await screenshot(page, `${name}-${dark ? 'dark' : 'light'}`);
      expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1), `${name} overflows at ${width} px`).toBe(true);
      if (width === 1280) expect(await accessibilityViolations(page), `WCAG A/AA on ${name} (${dark ? 'dark' : 'light'})`).toEqual([]);
    }
  }
  expect(await englishWords(page, [...CONTENT, ...content]), `English on ${name}`).toEqual([]);
  await setDark(false);
  await page.setViewportSize(viewport(1280));
}

const moment = (dialog: Locator, label: string) => ({
  date: dialog.getByLabel(`${label} วันที่`, { exact: true }),
  time: dialog.getByLabel(`${label} เวลา`, { exact: true }),
});

describe('the contest form rules', () => {
  const base: ContestValues = { ...newContestValues(), name: 'x', timeStart: { date: '2026-11-28', time: '14:05' }, timeEnd: { date: '2026-11-28', time: '17:30' } };
  it.each([
    ['a blank name', { name: '  ' }, { name: 'กรุณากรอกชื่อการแข่งขัน' }],
    ['an end before the start', { timeEnd: { date: '2026-11-28', time: '13:00' } }, { timeEnd: 'เวลาจบต้องมาหลังจากเวลาเริ่ม' }],
    ['an end equal to the start', { timeEnd: { date: '2026-11-28', time: '14:05' } }, { timeEnd: 'เวลาจบต้องมาหลังจากเวลาเริ่ม' }],
    ['a start without its time', { timeStart: { date: '2026-11-28', time: '' } }, { timeStart: 'กรุณาเลือกเวลาเริ่ม' }],
    ['a freeze after the end', { freezeAt: { date: '2026-11-28', time: '18:00' } }, { freezeAt: 'เวลาแช่แข็งต้องอยู่ระหว่างเวลาเริ่มและเวลาจบ' }],
    ['a freeze without its date', { freezeAt: { date: '', time: '16:00' } }, { freezeAt: 'กรุณาเลือกวันที่แช่แข็ง' }],
  ] as const)('refuses %s', (_name, change, errors) => {
    const result = checkContest({ ...base, ...change });
    expect(result).toEqual({ errors, body: null });
  });

  it('sends instants, OTOG\'s defaults and no freeze (null) when none is set', () => {
    const { errors, body } = checkContest({ ...base, name: '  ชื่อ  ' });
    expect(errors).toEqual({});
    expect(body).toEqual({
      name: 'ชื่อ',
      gradingMode: 'classic',
      mode: 'unrated',
      scoreboardPolicy: 'AFTER_CONTEST',
      timeStart: new Date('2026-11-28T14:05').toISOString(),
      timeEnd: new Date('2026-11-28T17:30').toISOString(),
      freezeAt: null,
    });
  });

  it('puts the server\'s 400 messages on their fields, in Thai when it knows them', () => {
    expect(readServerErrors('body.timeEnd: timeEnd must be after timeStart; body.name: Too big')).toEqual({
      fields: { timeEnd: 'เวลาจบต้องมาหลังจากเวลาเริ่ม', name: 'เซิร์ฟเวอร์ไม่รับข้อมูลนี้: Too big' },
      other: [],
    });
    expect(readServerErrors('freezeAt must be between timeStart and timeEnd')).toEqual({ fields: { freezeAt: 'เวลาแช่แข็งต้องอยู่ระหว่างเวลาเริ่มและเวลาจบ' }, other: [] });
    expect(readServerErrors('something else')).toEqual({ fields: {}, other: ['เซิร์ฟเวอร์ไม่รับข้อมูลนี้: something else'] });
  });
});

describe('admin contests', () => {
  it('creates a contest with the date-time pickers; an end before the start is refused at the field', async () => {
    await page.goto('/admin');
    await page.getByRole('navigation', { name: 'เมนูระบบจัดการ' }).getByRole('link', { name: 'แข่งขัน' }).click();
    await page.waitForURL('**/admin/contest');
    await page.getByRole('button', { name: 'เพิ่ม', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'เพิ่มการแข่งขัน' });
    // OTOG's defaults.
    expect(await dialog.getByLabel('โหมด', { exact: true }).inputValue()).toBe('classic');
    expect(await dialog.getByLabel('เรท', { exact: true }).inputValue()).toBe('unrated');
    expect(await dialog.getByLabel('ดูอันดับ', { exact: true }).inputValue()).toBe('AFTER_CONTEST');

    let posted = 0;
    page.on('request', (request) => {
      if (request.method() === 'POST' && new URL(request.url()).pathname === '/api/contest') posted++;
    });
    await dialog.getByLabel('ชื่อการแข่งขัน').fill(contestName);
    const start = moment(dialog, 'เวลาเริ่ม');
    const end = moment(dialog, 'เวลาจบ');
    await start.date.fill(contestDay);
    await start.time.fill('14:05');
    await end.date.fill(contestDay);
    await end.time.fill('13:00');
    // The chosen moment spelled out in Thai with its Buddhist-era year.
    const year = buddhistYear(new Date(`${contestDay}T12:00:00Z`));
    await dialog.getByText(new RegExp(`^\\d{1,2} \\S+ ${year}( เวลา)? 14:05$`)).waitFor();
    await dialog.getByRole('button', { name: 'เพิ่มการแข่งขัน' }).click();
    await dialog.getByRole('alert').filter({ hasText: 'เวลาจบต้องมาหลังจากเวลาเริ่ม' }).waitFor();
    expect(posted).toBe(0);
    expect(await end.time.getAttribute('aria-invalid')).toBe('true');
    await capture('admin-contest-form-error', [contestName]);

    await end.time.fill('17:30');
    await expect.poll(() => dialog.getByRole('alert').count()).toBe(0);
    await dialog.getByRole('button', { name: 'เพิ่มการแข่งขัน' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(posted).toBe(1);

    const created = await contestNamed(contestName);
    expect(created).toMatchObject({ gradingMode: 'classic', mode: 'unrated', scoreboardPolicy: 'AFTER_CONTEST' });
    expect(Date.parse(created.timeStart)).toBe(Date.parse(bangkok('14:05')));
    expect(Date.parse(created.timeEnd)).toBe(Date.parse(bangkok('17:30')));
    expect(created.freezeAt ?? null).toBeNull();
    const row = page.locator('tr', { hasText: contestName });
    await row.waitFor();
    // DD/MM/BBBB HH:mm in the table.
    expect(await row.innerText()).toContain(`${contestDay.slice(8, 10)}/${contestDay.slice(5, 7)}/${year} 14:05`);
    await capture('admin-contests', [contestName]);
  });

  it('edits the settings, with a freeze between the start and the end', async () => {
    await page.goto('/admin/contest');
    await page.getByRole('button', { name: `ตัวเลือกของการแข่งขัน ${contestName}` }).click();
    await page.getByRole('menuitem', { name: 'แก้ไขการแข่งขัน' }).click();
    const dialog = page.getByRole('dialog', { name: /แก้ไขการแข่งขัน/ });
    expect(await moment(dialog, 'เวลาเริ่ม').time.inputValue()).toBe('14:05');
    await dialog.getByLabel('ชื่อการแข่งขัน').fill(renamed);
    await dialog.getByLabel('โหมด', { exact: true }).selectOption('acm');
    await dialog.getByLabel('เรท', { exact: true }).selectOption('rated');
    await dialog.getByLabel('ดูอันดับ', { exact: true }).selectOption('DURING_CONTEST');
    const freeze = moment(dialog, 'แช่แข็งกระดานคะแนนตั้งแต่ (ไม่บังคับ)');
    await freeze.date.fill(contestDay);
    await freeze.time.fill('18:00');
    await dialog.getByRole('button', { name: 'บันทึก' }).click();
    await dialog.getByRole('alert').filter({ hasText: 'เวลาแช่แข็งต้องอยู่ระหว่างเวลาเริ่มและเวลาจบ' }).waitFor();
    await freeze.time.fill('16:30');
    await capture('admin-contest-form-edit', [renamed]);
    await dialog.getByRole('button', { name: 'บันทึก' }).click();
    await dialog.waitFor({ state: 'detached' });

    const edited = await contestNamed(renamed);
    expect(edited).toMatchObject({ gradingMode: 'acm', mode: 'rated', scoreboardPolicy: 'DURING_CONTEST' });
    expect(Date.parse(edited.freezeAt ?? '')).toBe(Date.parse(bangkok('16:30')));
    await page.locator('tr', { hasText: renamed }).getByText('ACM').waitFor();
  });

  it('chooses the problems of the contest, removes one, signs a user up and posts a contest announcement', async () => {
    const contest = await contestNamed(renamed);
    await page.goto('/admin/contest');
    await page.getByRole('link', { name: renamed }).click();
    await page.waitForURL(`**/admin/contest/${contest.id}`);
    await page.getByRole('heading', { name: renamed }).waitFor();
    expect(await page.getByRole('link', { name: 'หน้าการแข่งขัน' }).getAttribute('href')).toBe(`/contest/${contest.id}`);
    expect(await page.getByRole('link', { name: 'กระดานคะแนน' }).getAttribute('href')).toBe(`/contest/${contest.id}/scoreboard`);

    await page.getByRole('button', { name: 'เพิ่มโจทย์' }).click();
    const picker = page.getByRole('dialog', { name: 'เพิ่มโจทย์ในการแข่งขัน' });
    const { body: problems } = await api<{ data: Array<{ name: string; sname: string | null }> }>('GET', '/problem/admin/list?limit=100');
    const problemNames = problems.data.flatMap((problem) => [problem.name, problem.sname ?? '']);
    await picker.getByLabel(/Sample: aplusb/).check();
    await picker.getByLabel(/Sample: five-subtask/).check();
    await capture('admin-contest-problems-dialog', [renamed, ...problemNames]);
    await picker.getByRole('button', { name: /บันทึก/ }).click();
    await picker.waitFor({ state: 'detached' });
    type Detail = { contestProblem: Array<{ problem: { id: number; name: string } }> };
    const problemsOf = async () => (await api<Detail>('GET', `/contest/admin/${contest.id}`)).body.contestProblem.map(({ problem }) => problem.name).sort();
    expect(await problemsOf()).toEqual(['Sample: aplusb', 'Sample: five-subtask']);

    // Opened again, the picker has them ticked.
    await page.getByRole('button', { name: 'เพิ่มโจทย์' }).click();
    expect(await picker.getByLabel(/Sample: aplusb/).isChecked()).toBe(true);
    await picker.getByRole('button', { name: 'ยกเลิก' }).click();

    await page.getByRole('button', { name: 'ตัวเลือกของโจทย์ Sample: five-subtask' }).click();
    await page.getByRole('menuitem', { name: 'ลบโจทย์ออกจากการแข่งขัน' }).click();
    const confirm = page.getByRole('dialog', { name: 'ลบโจทย์ออกจากการแข่งขัน' });
    await capture('admin-contest-remove-problem', [renamed]);
    await confirm.getByRole('button', { name: 'ลบโจทย์ออกจากการแข่งขัน' }).click();
    await confirm.waitFor({ state: 'detached' });
    expect(await problemsOf()).toEqual(['Sample: aplusb']);
    await expect.poll(() => page.getByRole('button', { name: 'ตัวเลือกของโจทย์ Sample: five-subtask' }).count()).toBe(0);

    // Signing up: search the accounts, then the user's button.
    await page.getByLabel('ค้นหาผู้ใช้ด้วยเลขผู้ใช้ ชื่อผู้ใช้ หรือชื่อที่แสดง').fill(contestant.username);
    await page.getByRole('button', { name: `ลงทะเบียน ${contestant.showName}` }).click();
    await page.getByRole('link', { name: contestant.showName }).waitFor();
    const board = await api<{ contest: { userContest: Array<{ userId: number }> } }>('GET', `/contest/${contest.id}/scoreboard`);
    const { body: users } = await api<{ data: Array<{ id: number; username: string }> }>('GET', `/user/admin/list?search=${contestant.username}`);
    expect(board.body.contest.userContest.map((row) => row.userId)).toContain(users.data[0]!.id);

    // A contest announcement: added hidden, then shown.
    const text = `ประกาศของการแข่งขัน ${suffix}`;
    await page.getByLabel('ข้อความประกาศ').fill(text);
    await page.getByRole('button', { name: 'เพิ่มประกาศ' }).click();
    const card = page.locator('article', { hasText: text });
    await card.getByText('ซ่อนอยู่').waitFor();
    await card.getByRole('button', { name: 'แสดง' }).click();
    await card.getByText('แสดงอยู่').waitFor();
    const shown = await api<Array<{ value: string; contestId: number | null }>>('GET', `/announcement?contestId=${contest.id}&show=true`);
    expect(shown.body).toEqual([expect.objectContaining({ value: text, contestId: contest.id })]);
    const global = await api<Array<{ value: string }>>('GET', '/announcement');
    expect(global.body.map((row) => row.value)).not.toContain(text);

    // The freeze is set: the reveal.
    await page.getByRole('button', { name: 'เปิดเผยกระดานคะแนน' }).click();
    const reveal = page.getByRole('dialog', { name: 'เปิดเผยกระดานคะแนน' });
    await reveal.getByRole('button', { name: 'เปิดเผยกระดานคะแนน' }).click();
    await reveal.waitFor({ state: 'detached' });
    await page.getByText('เปิดเผยกระดานคะแนนแล้ว').first().waitFor();

    await page.waitForLoadState('networkidle');
    await capture('admin-contest', [renamed, text, contestant.showName, contestant.username]);
  });

  it('finds contests by name or id, and pages through them', async () => {
    const target = await contestNamed(renamed);
    for (let index = 1; index <= 11; index++) {
      const start = new Date(Date.now() + (index + 3) * 86_400_000);
      const { status } = await api('POST', '/contest', {
        name: `เติมรายการ ${suffix}-${index}`,
        mode: 'unrated',
        gradingMode: 'classic',
        scoreboardPolicy: 'AFTER_CONTEST',
        timeStart: start.toISOString(),
        timeEnd: new Date(start.getTime() + 3_600_000).toISOString(),
      });
      expect(status).toBe(200);
    }
    const { body } = await api<{ total: number }>('GET', '/contest/admin/list');
    const pages = Math.ceil(body.total / 10);
    expect(pages).toBeGreaterThanOrEqual(2);

    await page.goto('/admin/contest');
    await page.getByText(`หน้า 1 / ${pages}`).waitFor();
    expect(await page.locator('tbody tr').count()).toBe(10);
    await page.getByRole('button', { name: 'ถัดไป' }).click();
    await page.waitForURL(/[?&]page=2/);
    await page.getByText(`หน้า 2 / ${pages}`).waitFor();

    const search = page.getByLabel('ค้นหาการแข่งขันด้วยเลขหรือชื่อ');
    await search.fill(`แข่ง ${suffix} (แก้`);
    await page.waitForURL(/[?&]q=/);
    await expect.poll(() => page.locator('tbody tr').count()).toBe(1);
    await page.locator('tbody tr', { hasText: renamed }).waitFor();
    expect(page.url()).not.toMatch(/[?&]page=/);
    await search.fill(String(target.id));
    await expect.poll(async () => (await page.locator('tbody tr').first().innerText()).includes(renamed)).toBe(true);
    await search.fill('ไม่มีการแข่งขันชื่อนี้แน่นอน');
    await page.getByText('ไม่พบการแข่งขันที่ตรงกับ').waitFor();
  });

  it('shows every projection on the status page, none faulted', async () => {
    await page.goto('/admin');
    await page.getByRole('link', { name: 'สถานะระบบ' }).click();
    await page.waitForURL('**/admin/projection');
    await page.getByRole('heading', { name: 'สถานะระบบประมวลผล' }).waitFor();
    const table = page.getByRole('table');
    for (const projection of allProjections) await table.getByRole('rowheader', { name: projection.name, exact: true }).first().waitFor();
    expect(await table.getByText('หยุดทำงาน').count()).toBe(0);
    const { status, body } = await api<{ slots: Array<{ projection: string; status: string }> }>('GET', '/admin/projections');
    expect(status).toBe(200);
    expect(body.slots.filter((slot) => slot.status === 'faulted')).toEqual([]);
    expect(new Set(body.slots.map((slot) => slot.projection))).toEqual(new Set(allProjections.map((p) => p.name)));
    expect(await table.locator('tbody tr').count()).toBe(body.slots.length);
    // Refreshed on its own every 5 s.
    const refreshed = page.waitForResponse((response) => new URL(response.url()).pathname === '/api/admin/projections', { timeout: 8_000 });
    await refreshed;
    // Anyone else is refused.
    expect((await stack.api.call('GET', '/admin/projections')).status).toBe(401);
    const user = await stack.api.login(contestant.username, contestant.password);
    expect((await stack.api.call('GET', '/admin/projections', { token: user.token })).status).toBe(403);
    await capture('admin-projections', allProjections.map((p) => p.name));
  });

  it('deletes a contest after naming it in the confirmation', async () => {
    const contest = await contestNamed(renamed);
    await page.goto(`/admin/contest?q=${encodeURIComponent(renamed)}`);
    await page.getByRole('button', { name: `ตัวเลือกของการแข่งขัน ${renamed}` }).click();
    await page.getByRole('menuitem', { name: 'ลบการแข่งขัน' }).click();
    const confirm = page.getByRole('dialog', { name: 'ลบการแข่งขัน' });
    expect(await confirm.innerText()).toContain(renamed);
    expect(await confirm.innerText()).toContain('ผลตรวจทุกรายการที่ส่งในการแข่งขันนี้จะถูกลบไปด้วย');
    await capture('admin-contest-delete', [renamed]);
    await confirm.getByRole('button', { name: 'ลบการแข่งขัน' }).click();
    await confirm.waitFor({ state: 'detached' });
    await page.getByText(`ไม่พบการแข่งขันที่ตรงกับ`).waitFor();
    expect((await api('GET', `/contest/admin/${contest.id}`)).status).toBe(404);
  });
});
