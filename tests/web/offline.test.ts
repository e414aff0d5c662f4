/**
 * Offline mode (an on-site contest, OFFLINE_MODE=true) in the browser: the site hides the problem,
 * submission and contest links, the search, registration and profiles, sends visitors to sign-in, and the
 * footer asks contestants to raise a hand.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
      await screenshot(page, 'offline-contest');
      await context.close();
    }
  });
});
