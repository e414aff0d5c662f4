/**
 * Custom checkers read the problem folder through a read-only bind mount, which bubblewrap sets up as
 * the slot's uid: every directory from / down to the folder must be traversable by "others", and the
 * folder's files readable. This says what is in the way, before a checker fails with a puzzling error.
 */
import { readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** Undefined when the sandbox uids can read the folder; otherwise what to fix. */
export function sandboxReadProblem(dir: string): string | undefined {
  const absolute = resolve(dir);
  const chain: string[] = [];
  for (let current = absolute; ; current = dirname(current)) {
    chain.unshift(current);
    if (dirname(current) === current) break;
  }
  try {
    for (const path of chain) {
      const mode = statSync(path).mode;
      const needed = path === absolute ? 0o005 : 0o001;
      if ((mode & needed) !== needed) {
        return `${path} is mode ${(mode & 0o777).toString(8)}; the sandbox uids need ${path === absolute ? 'o+rx' : 'o+x'} on it (and o+r on the test files)`;
      }
    }
    for (const entry of readdirSync(absolute, { withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const mode = statSync(join(absolute, entry.name)).mode;
      if ((mode & 0o004) === 0) return `${join(absolute, entry.name)} is mode ${(mode & 0o777).toString(8)}; the sandbox uids need o+r on it`;
    }
  } catch (error) {
    return `cannot inspect ${absolute}: ${(error as Error).message}`;
  }
  return undefined;
}
