/**
 * `node web/scripts/build.ts [--if-stale]`: builds the web app into web/dist with Vite. With --if-stale it
 * builds only when its inputs (web sources, the shared schemas, the lockfile) changed since the last build,
 * so `npm start` and the browser tests pay for a build once.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const webDir = fileURLToPath(new URL('..', import.meta.url));
const root = join(webDir, '..');
const distDir = join(webDir, 'dist');
const stampFile = join(distDir, '.inputs-sha256');

function* files(path: string): Generator<string> {
  if (!existsSync(path)) return;
  if (statSync(path).isFile()) {
    yield path;
    return;
  }
  for (const entry of readdirSync(path).sort()) yield* files(join(path, entry));
}

/** One hash over every input's path and bytes. */
function inputsHash(): string {
  const hash = createHash('sha256');
  const inputs = ['web/src', 'web/public', 'web/index.html', 'web/vite.config.ts', 'web/package.json', 'schemas/src', 'package-lock.json'];
  for (const input of inputs) {
    for (const file of files(join(root, input))) hash.update(relative(root, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

const ifStale = process.argv.includes('--if-stale');
const hash = inputsHash();
if (ifStale && existsSync(stampFile) && readFileSync(stampFile, 'utf8') === hash) process.exit(0);

process.stderr.write('Building the web app (web/dist) ...\n');
// React and the JSX transform pick their development builds from NODE_ENV, which a caller may have set
// (vitest sets "test"): this script always makes the production build.
// eslint-disable-next-line no-restricted-properties -- an entry point setting its own environment
process.env.NODE_ENV = 'production';
const started = performance.now();
await build({ root: webDir, mode: 'production', logLevel: 'warn', configFile: join(webDir, 'vite.config.ts') });
writeFileSync(stampFile, hash);
process.stderr.write(`Built the web app in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
