/**
 * Serving the web app from the API process: page paths get index.html with the runtime settings written in,
 * built assets are cached for good, the API keeps its JSON 404s, and a missing build says how to make one.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '@otog/api/app';
import { contentSecurityPolicy } from '@otog/api/http/web-app';

const dist = mkdtempSync(join(tmpdir(), 'otog-web-dist-'));
mkdirSync(join(dist, 'assets'));
const indexHtml = (marker: string) =>
  `<!doctype html><html><head><meta name="otog-config" content="{}" /></head><body>${marker}<script type="module" src="/assets/app-abc123.js"></script></body></html>`;
writeFileSync(join(dist, 'index.html'), indexHtml('first build'));
writeFileSync(join(dist, 'assets', 'app-abc123.js'), 'console.log("app")');
writeFileSync(join(dist, 'logo.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');

const online = buildApp({ web: { distDir: dist, config: { offline: false } } });
const offline = buildApp({ web: { distDir: dist, config: { offline: true } } });
const unbuilt = buildApp({ web: { distDir: join(dist, 'missing'), config: { offline: false } } });
afterAll(async () => {
  await Promise.all([online.close(), offline.close(), unbuilt.close()]);
  rmSync(dist, { recursive: true, force: true });
});

const configOf = (html: string) => {
  const match = /<meta name="otog-config" content="([^"]*)" \/>/.exec(html);
  return match ? (JSON.parse(match[1]!.replaceAll('&quot;', '"').replaceAll('&amp;', '&')) as unknown) : null;
};

describe('the web app at /', () => {
  it('answers every page path with the app, its settings written in, never cached', async () => {
    for (const url of ['/', '/problem', '/problem/12?tab=editor', '/submission/5', '/no/such/page', '/index.html']) {
      const response = await online.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(200);
      expect(response.headers['content-type']).toMatch(/^text\/html/);
      expect(response.headers['cache-control']).toBe('no-cache');
      expect(response.body).toContain('first build');
      expect(configOf(response.body), url).toEqual({ offline: false });
    }
    const response = await offline.inject({ method: 'GET', url: '/contest' });
    expect(configOf(response.body)).toEqual({ offline: true });
  });

  it('sends pages with a Content-Security-Policy that allows their own inline script by hash, and refuses framing', async () => {
    const script = "document.documentElement.classList.toggle('dark', true);";
    expect(contentSecurityPolicy(`<head><script>${script}</script></head>`)).toContain(
      `script-src 'self' 'sha256-${createHash('sha256').update(script).digest('base64')}'`,
    );
    expect(contentSecurityPolicy('<script type="module" src="/a.js"></script>')).toContain("script-src 'self';");
    const response = await online.inject({ method: 'GET', url: '/problem' });
    expect(response.headers['content-security-policy']).toMatch(/default-src 'self'.*frame-ancestors 'none'/);
    expect(response.headers['x-frame-options']).toBe('DENY');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
  });

  it('serves built assets with a long immutable cache, and other files briefly cached', async () => {
    const asset = await online.inject({ method: 'GET', url: '/assets/app-abc123.js' });
    expect(asset.statusCode).toBe(200);
    expect(asset.headers['content-type']).toMatch(/javascript/);
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const logo = await online.inject({ method: 'GET', url: '/logo.svg' });
    expect(logo.headers['cache-control']).toBe('public, max-age=300');
  });

  it('keeps JSON 404s for the API and for non-GET requests', async () => {
    expect((await online.inject({ method: 'GET', url: '/api/nope' })).json()).toEqual({ message: 'Not found: GET /api/nope' });
    const post = await online.inject({ method: 'POST', url: '/problem' });
    expect(post.statusCode).toBe(404);
    expect(post.json()).toEqual({ message: 'Not found: POST /problem' });
    expect((await online.inject({ method: 'GET', url: '/../../etc/passwd' })).body).not.toContain('root:');
  });

  it('picks up a rebuild while running', async () => {
    writeFileSync(join(dist, 'index.html'), indexHtml('second build'));
    const later = new Date(Date.now() + 5_000);
    utimesSync(join(dist, 'index.html'), later, later);
    expect((await online.inject({ method: 'GET', url: '/problem' })).body).toContain('second build');
  });

  it('says how to build the app when there is no build', async () => {
    const response = await unbuilt.inject({ method: 'GET', url: '/problem' });
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain('npm run build');
  });
});
