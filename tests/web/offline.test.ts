/**
 * Offline mode (an on-site contest, OFFLINE_MODE=true) in the browser: the site hides the problem,
 * submission and contest links, the search, registration and profiles, sends visitors to sign-in, and the
 * footer asks contestants to raise a hand. A contestant walks from sign-in to an accepted submission in the
 * running contest, with no scoreboard or contest history in sight.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { solution } from './fixtures.ts';
import { announce, createContest, problemNamed } from './contest-support.ts';
import { ADMIN, englishWords, screenshot, signIn, startWebStack, type WebStack } from './support.ts';

let stack: WebStack;
beforeAll(async () => {
  stack = await startWebStack({ env: { OFFLINE_MODE: 'true' } });
}, 240_000);
afterAll(async () => stack?.stop(), 60_000);

const contestant = { username: 'onsite_1', password: 'onsite-pass-1', showName: 'ผู้เข้าแข่งขัน หนึ่ง' };

describe('offline mode', () => {
  it('hides what an on-site contest must not show, and sends visitors to sign-in', async () => {
    const admin = await stack.api.login(ADMIN.username, ADMIN.password);
    // Registration is closed offline except to admins, who make the contestants' accounts.
    expect((await stack.api.call('POST', '/auth/register', { json: contestant })).status).toBe(401);
    expect((await stack.api.call('POST', '/auth/register', { json: contestant, token: admin.token })).status).toBe(201);

    for (const width of [1280, 390]) {
      const context = await stack.newContext(width);
      const page = await context.newPage();
      await page.goto('/');
      await page.waitForURL('**/login');
      await page.getByRole('heading', { name: 'เข้าสู่ระบบ' }).waitFor();
      expect(await page.getByRole('navigation', { name: 'เมนูหลัก' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: 'เปิดเมนู' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: /ค้นหา/ }).count()).toBe(0);
      expect(await page.getByRole('link', { name: 'ลงทะเบียน' }).count()).toBe(0);
      const footer = await page.locator('footer').innerText();
      expect(footer).toContain('หากมีข้อสงสัย กรุณายกมือถาม');
      expect(await page.locator('footer a').count()).toBe(0);
      await screenshot(page, 'offline-login');

      // Pages an on-site contest hides lead back to sign-in; meta+K opens nothing.
      await page.goto('/problem');
      await page.waitForURL('**/login');
      await page.keyboard.press('Meta+KeyK');
      expect(await page.getByRole('dialog').count()).toBe(0);

      await signIn(page, contestant.username, contestant.password);
      expect(new URL(page.url()).pathname).toBe('/contest');
      await page.getByRole('button', { name: /เมนูผู้ใช้/ }).click();
      expect(await page.getByRole('menuitem', { name: 'โปรไฟล์' }).count()).toBe(0);
      expect(await page.getByRole('menuitem', { name: 'ออกจากระบบ' }).count()).toBe(1);
      await page.keyboard.press('Escape');
      expect(await englishWords(page, [contestant.showName, contestant.username])).toEqual([]);
      // No contest yet, and the history is the admins' here.
      await page.getByRole('heading', { name: 'ยังไม่มีการแข่งขัน' }).waitFor();
      expect(await page.getByRole('link', { name: 'ประวัติการแข่งขัน' }).count()).toBe(0);
      await screenshot(page, 'offline-contest');
      await context.close();
    }
  });

  it('a contestant signs in, lands on the running contest and solves a problem; no scoreboard, no history', async () => {
    const admin = await stack.api.login(ADMIN.username, ADMIN.password);
    const aplusb = await problemNamed(stack, 'Sample: aplusb', admin.token);
    const name = 'แข่งในสนาม';
    // The policy would show the board during the contest online; offline it is the admins' alone.
    const contestId = await createContest(stack, admin.token, { name, startIn: -60_000, lengthMs: 3 * 3_600_000, scoreboardPolicy: 'DURING_CONTEST', problemIds: [aplusb.id] });
    await announce(stack, admin.token, contestId, 'เริ่มได้เลย');

    const context = await stack.newContext(1280);
    const page = await context.newPage();
    await signIn(page, contestant.username, contestant.password);
    // /contest, then the only current contest.
    await page.waitForURL(`**/contest/${contestId}`);
    await page.getByRole('heading', { name: `การแข่งขัน ${name}`, exact: true }).waitFor();
    const sidebar = page.locator('aside.contest-sidebar');
    await sidebar.locator(`a[data-problem-id="${aplusb.id}"]`).waitFor();
    expect(await page.getByRole('link', { name: /ตารางคะแนน|สรุปผลการแข่งขัน/ }).count()).toBe(0);
    expect(await sidebar.getByRole('link', { name: /ประกาศ!/ }).count()).toBe(1);

    await sidebar.locator(`a[data-problem-id="${aplusb.id}"]`).click();
    await page.waitForURL(`**/contest/${contestId}/problem/${aplusb.id}`);
    await page.locator(`embed[src*="/api/problem/doc/${aplusb.id}"]`).waitFor({ state: 'attached' });
    await page.getByRole('tab', { name: 'เขียนโค้ด' }).click();
    const editor = page.locator('.cm-content');
    await editor.waitFor();
    await page.getByLabel('ภาษา').selectOption('python');
    await editor.click();
    await page.keyboard.press('ControlOrMeta+A');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText(solution('accept.py'));
    await page.getByRole('button', { name: 'ส่ง', exact: true }).click();
    await page.waitForURL(/tab=submissions/);
    await page.getByRole('tabpanel').locator('tbody tr').first().getByText('ผ่าน', { exact: true }).waitFor({ timeout: 90_000 });
    const badge = sidebar.locator(`a[data-problem-id="${aplusb.id}"] .badge`);
    await expect.poll(() => badge.innerText(), { timeout: 20_000 }).toContain(`${aplusb.score} / ${aplusb.score}`);
    expect(await sidebar.locator('.contest-total').innerText()).toBe(`คะแนนรวม ${aplusb.score} / ${aplusb.score}`);
    expect(await englishWords(page, [contestant.showName, contestant.username, name, aplusb.name])).toEqual([]);
    await screenshot(page, 'offline-contest-problem');

    // What an on-site contest hides stays hidden, even by address.
    await page.goto(`/contest/${contestId}/scoreboard`);
    await page.getByRole('heading', { name: 'ไม่พบหน้าที่คุณต้องการ' }).waitFor();
    await page.goto('/contest/history');
    await page.waitForURL(`**/contest/${contestId}`);
    await page.goto(`/problem/${aplusb.id}`);
    await page.waitForURL((url) => !url.pathname.startsWith('/problem'));
    await context.close();
  }, 180_000);
});
