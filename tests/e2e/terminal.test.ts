/**
 * `npm start` in a terminal (a pseudo-terminal from util-linux `script`): readable log lines instead of
 * JSON, the first admin's password in a box, and Ctrl-C (typed, so the terminal signals the whole
 * process group) stopping cleanly.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/local-services.ts';
import { until } from '../support/until.ts';
import { localSandboxEnv } from '../../services/api/src/judging/local-worker.ts';
import { childEnv, exited, root } from './otog-process.ts';

const scratch = mkdtempSync(join(tmpdir(), 'otog-tty-'));
chmodSync(scratch, 0o755); // as root the postgres user walks through it
afterAll(() => {
  rmSync(scratch, { recursive: true, force: true });
  rmSync(localSandboxEnv(join(scratch, 'data')).OTOG_JUDGE_CACHE_DIR!, { recursive: true, force: true });
});

describe('npm start in a terminal', () => {
  it('logs readable lines, boxes the admin password and stops cleanly on Ctrl-C', async () => {
    const env = childEnv({ OTOG_DATA_DIR: join(scratch, 'data'), PORT: String(await freePort()), LOG_LEVEL: 'info', SHELL: '/bin/sh' });
    // script runs the command with $SHELL -c; dash (/bin/sh, the usual shell where SHELL is unset, as in CI)
    // would stay as the parent and die of the Ctrl-C itself (exit 130) whatever OTOG does: `exec`, as npm start.
    const child = spawn('script', ['-qefc', 'exec node services/api/src/main.ts', '/dev/null'], { cwd: root, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    try {
      await until('OTOG is running', () => output.includes('OTOG is running at'), 120_000);
      child.stdin.write('\u0003'); // Ctrl-C
      expect(await exited(child), output).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
    // eslint-disable-next-line no-control-regex
    const lines = output.replace(/\u001b\[[0-9;]*m/g, '').split(/\r?\n/);
    expect(lines.filter((line) => line.trimStart().startsWith('{')), output).toEqual([]);
    expect(lines.some((line) => /^\d\d:\d\d:\d\d INFO {2}embedded Postgres is running/.test(line)), output).toBe(true);
    const box = lines.findIndex((line) => line.startsWith('┌'));
    expect(lines[box + 1]).toMatch(/^│ Created the first admin\. +│$/);
    expect(lines[box + 2]).toMatch(/^│ username: admin {3}password: \S+ +│$/);
    expect(lines.filter((line) => / (ERROR|FATAL) /.test(line)), output).toEqual([]);
    expect(lines.some((line) => /INFO {2}stopped/.test(line)), output).toBe(true);
  }, 180_000);
});
