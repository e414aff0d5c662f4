/**
 * Human-readable log lines for a terminal: `12:34:56 INFO  message key=value …` instead of pino's JSON
 * (which stays the format for files, pipes and log collectors). A tiny formatter of our own rather than
 * pino-pretty: one line per record, colours only on a terminal.
 */

const LEVEL_NAMES: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
const LEVEL_COLOURS: Record<string, string> = { TRACE: '90', DEBUG: '90', INFO: '32', WARN: '33', ERROR: '31', FATAL: '35' };
/** Fields every record carries that say nothing to a person at a terminal. */
const HIDDEN = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'name', 'v']);

function levelName(level: unknown): string {
  if (typeof level === 'number') return LEVEL_NAMES[level] ?? String(level);
  return typeof level === 'string' ? level.toUpperCase() : 'INFO';
}

function clock(time: unknown): string {
  const date = typeof time === 'number' || typeof time === 'string' ? new Date(time) : new Date();
  return Number.isNaN(date.getTime()) ? '' : date.toTimeString().slice(0, 8);
}

function show(value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  return JSON.stringify(value) ?? String(value);
}

/** One JSON log record as a readable line (with a trailing newline); anything else is returned as it is. */
export function formatLogLine(line: string, options: { colour: boolean }): string {
  let record: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(line);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return line;
    record = parsed as Record<string, unknown>;
  } catch {
    return line;
  }
  const level = levelName(record.level);
  const paint = (code: string | undefined, text: string) => (options.colour && code ? `\u001b[${code}m${text}\u001b[0m` : text);
  const fields: string[] = [];
  let stack = '';
  for (const [key, value] of Object.entries(record)) {
    if (HIDDEN.has(key)) continue;
    // A serialised error: its message inline, its stack below the line.
    if (value && typeof value === 'object' && typeof (value as { stack?: unknown }).stack === 'string') {
      const error = value as { message?: unknown; stack: string };
      fields.push(`${key}=${show(error.message ?? '')}`);
      stack += `\n${error.stack.replace(/^/gm, '    ')}`;
      continue;
    }
    fields.push(`${key}=${show(value)}`);
  }
  const name = typeof record.name === 'string' && record.name !== 'otog' ? `${record.name}: ` : '';
  const message = typeof record.msg === 'string' ? record.msg : '';
  const head = `${paint('90', clock(record.time))} ${paint(LEVEL_COLOURS[level], level.padEnd(5))} ${name}${message}`;
  return `${head}${fields.length > 0 ? `  ${paint('90', fields.join(' '))}` : ''}${stack}\n`;
}

/** A stream for pino that writes each record to `out` formatted. */
export function prettyStream(out: NodeJS.WritableStream & { isTTY?: boolean }): { write(chunk: string): boolean } {
  const colour = out.isTTY === true;
  return { write: (chunk: string) => out.write(formatLogLine(chunk.trimEnd(), { colour })) };
}

/**
 * Relays another process's output to `out` line by line, formatting its JSON log records when `pretty`
 * (the built-in judge worker logs JSON to stderr).
 */
export function lineRelay(out: NodeJS.WritableStream & { isTTY?: boolean }, pretty: boolean): (chunk: Buffer | string) => void {
  if (!pretty) return (chunk) => void out.write(chunk);
  let pending = '';
  return (chunk) => {
    pending += chunk.toString();
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      const formatted = formatLogLine(line, { colour: out.isTTY === true });
      out.write(formatted.endsWith('\n') ? formatted : `${formatted}\n`);
    }
  };
}
