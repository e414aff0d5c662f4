import { createHash } from 'node:crypto';
/**
 * Serves the built web app (web/dist) at `/`: hashed assets with a long cache, and index.html for every
 * other page path (the SPA routes), with the runtime settings (offline mode, links) written into its
 * `<meta name="otog-config">` so one build serves an online site and an on-site contest alike.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyStaticOptions } from '@fastify/static';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** What the web app needs to know of the server's settings (web/src/lib/config.ts reads it). */
export interface WebClientConfig {
  readonly offline: boolean;
  /** The largest source file a submission may be, so the browser refuses a bigger one before sending. */
  readonly submissionMaxBytes?: number;
  /** Seconds between the session's re-reads besides focus and other tabs' notices; 0 = none. */
  readonly sessionPollSeconds?: number;
}

export interface WebAppOptions {
  /** web/dist */
  readonly distDir: string;
  readonly config: WebClientConfig;
}

const CONFIG_META = /<meta name="otog-config" content="[^"]*"\s*\/?>/;

const escapeAttribute = (value: string) => value.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/** index.html with the settings written in; a plain page that says how to build when there is no build. */
export function renderIndexHtml(options: WebAppOptions): string {
  const indexPath = join(options.distDir, 'index.html');
  if (!existsSync(indexPath)) {
    return '<!doctype html><html lang="th"><meta charset="utf-8"><title>OTOG</title><body><h1>OTOG</h1><p>The web app is not built yet: run <code>npm run build -w web</code> (npm start builds it).</p><p><a href="/api/doc">API documentation</a></p></body></html>';
  }
  const html = readFileSync(indexPath, 'utf8');
  if (!CONFIG_META.test(html)) throw new Error(`${indexPath} has no <meta name="otog-config"> to fill in`);
  return html.replace(CONFIG_META, `<meta name="otog-config" content="${escapeAttribute(JSON.stringify(options.config))}" />`);
}

/** A browser asking for a page (not the API, not a file): answered with the app, which routes it. */
export function wantsPage(request: FastifyRequest, apiPrefix: string): boolean {
  const path = request.url.split('?')[0] ?? '';
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  if (path === apiPrefix || path.startsWith(`${apiPrefix}/`)) return false;
  return true;
}

/** The static files of the build; '/' and '/index.html' are left to the page (with its settings filled in). */
export function staticFilesOptions(options: WebAppOptions): FastifyStaticOptions {
  return {
    root: options.distDir,
    index: false,
    allowedPath: (path) => path !== '/index.html',
    wildcard: true,
    // The docs page registers its own static files; this one needs no reply decorator.
    decorateReply: false,
    setHeaders: (reply, path) => {
      // Vite names assets by content hash: they never change under the same name.
      void reply.header('cache-control', path.startsWith(join(options.distDir, 'assets')) ? 'public, max-age=31536000, immutable' : 'public, max-age=300');
    },
  };
}

const INLINE_SCRIPT = /<script>([\s\S]*?)<\/script>/g;

/**
 * The page's Content-Security-Policy: scripts only from this site, plus the page's own inline scripts by
 * hash (the colour mode set before the first paint, a scoreboard's early board request); styles may be
 * inline (the editor injects its own); images, PDFs (an embed), sockets and API calls from this site only;
 * no framing by other sites.
 */
export function contentSecurityPolicy(html: string): string {
  const hashes = [...html.matchAll(INLINE_SCRIPT)].map(([, body]) => `'sha256-${createHash('sha256').update(body ?? '').digest('base64')}'`);
  return [
    "default-src 'self'",
    `script-src 'self' ${hashes.join(' ')}`.trim(),
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'self'",
    "frame-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "form-action 'self'",
  ].join('; ');
}

/** Sends the app's page: the SPA routes every page path itself, its 404 page included. */
export function pageSender(options: WebAppOptions): (reply: FastifyReply) => FastifyReply {
  const indexPath = join(options.distDir, 'index.html');
  const modified = () => (existsSync(indexPath) ? statSync(indexPath).mtimeMs : 0);
  const render = (at: number) => {
    const html = renderIndexHtml(options);
    return { at, html, policy: contentSecurityPolicy(html) };
  };
  let cached = render(modified());
  return (reply) => {
    // A rebuild while the server runs (npm run build) is picked up on the next page load.
    const at = modified();
    if (at !== cached.at) cached = render(at);
    return reply
      .code(200)
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-cache')
      .header('content-security-policy', cached.policy)
      .header('x-frame-options', 'DENY')
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'strict-origin-when-cross-origin')
      .send(cached.html);
  };
}
