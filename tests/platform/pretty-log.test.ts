/** The terminal log format: readable lines from pino's (and the judge worker's) JSON records. */
import { describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import { createLogger } from '@otog/platform/log/logger';
import { formatLogLine, lineRelay } from '@otog/platform/log/pretty';

function capture(isTTY: boolean) {
  const stream = Object.assign(new PassThrough(), { isTTY });
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { stream, text: () => text };
}

describe('log format', () => {
  it('formats a pino record as time, level, message and fields (no pid, hostname or name)', () => {
    const time = new Date(2026, 0, 2, 3, 4, 5).getTime();
    const line = JSON.stringify({ level: 40, time, pid: 1, hostname: 'h', name: 'otog', msg: 'slow', ms: 12, who: 'a b' });
    expect(formatLogLine(line, { colour: false })).toBe('03:04:05 WARN  slow  ms=12 who="a b"\n');
  });

  it('formats the judge worker\'s records (string levels, its own name) and passes other lines through', () => {
    const line = JSON.stringify({ time: '2026-01-02T03:04:05.000Z', level: 'error', name: 'otog-judge', msg: 'oops' });
    expect(formatLogLine(line, { colour: false })).toMatch(/^\d\d:\d\d:\d\d ERROR otog-judge: oops\n$/);
    expect(formatLogLine('otog-judge: plain text', { colour: false })).toBe('otog-judge: plain text');
    const relayed = capture(false);
    const relay = lineRelay(relayed.stream, true);
    relay(`${line.slice(0, 10)}`);
    relay(`${line.slice(10)}\nplain\n`);
    expect(relayed.text()).toMatch(/^\d\d:\d\d:\d\d ERROR otog-judge: oops\nplain\n$/);
  });

  it('is JSON unless the destination is a terminal, and redacts secrets either way', () => {
    for (const isTTY of [false, true]) {
      const out = capture(isTTY);
      createLogger({ name: 'otog', destination: out.stream }).info({ password: 'hunter2', user: 'a' }, 'signed in');
      const text = out.text();
      expect(text).not.toContain('hunter2');
      if (isTTY) expect(text).toMatch(/INFO .*signed in {2}.*password=\[redacted\] user=a/);
      else expect(JSON.parse(text)).toMatchObject({ msg: 'signed in', password: '[redacted]' });
    }
  });
});
