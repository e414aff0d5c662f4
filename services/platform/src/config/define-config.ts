import { z } from 'zod';

/** Thrown when the environment does not satisfy a process's config schema; lists every problem at once. */
export class ConfigError extends Error {
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/** Parses environment variables with a zod object schema whose keys are the variable names. */
export function parseConfig<TShape extends z.ZodRawShape>(
  shape: TShape,
  env: Record<string, string | undefined> = process.env,
): z.output<z.ZodObject<TShape>> {
  const result = z.object(shape).safeParse(env);
  if (result.success) return result.data;
  throw new ConfigError(
    result.error.issues.map((issue) => {
      const name = issue.path.join('.') || '(environment)';
      const present = typeof issue.path[0] === 'string' && env[issue.path[0]] !== undefined;
      return present ? `${name}: ${issue.message}` : `${name}: is required but not set`;
    }),
  );
}

/** For entry points: parse or print what is wrong and exit(1), so a process never half-starts. */
export function loadConfigOrExit<TShape extends z.ZodRawShape>(
  processName: string,
  shape: TShape,
): z.output<z.ZodObject<TShape>> {
  try {
    return parseConfig(shape);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${processName}: ${error.message}\n`);
    process.exit(1);
  }
}

/**
 * A URL variable, checked for shape so a typo fails at start with the variable's name: one that does not
 * parse names the `expected` form; `problem` says what else is wrong with a parsed one, if anything.
 */
export function urlVariable(expected: string, problem: (url: URL) => string | undefined) {
  return z.string().superRefine((value, ctx) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      ctx.addIssue({ code: 'custom', message: `is not a valid URL (expected ${expected})` });
      return;
    }
    const message = problem(url);
    if (message) ctx.addIssue({ code: 'custom', message });
  });
}

/** A postgres:// URL. */
export const postgresUrl = urlVariable('postgres://user:password@host:port/database', (url) => {
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') return `must use the postgres:// scheme, got "${url.protocol}"`;
  if (!url.hostname) return 'has no host';
  if (url.pathname.length <= 1) return 'has no database name';
  return undefined;
});

export const port = z.coerce.number().int().min(1).max(65535);
export const logLevel = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info');
