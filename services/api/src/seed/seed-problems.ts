/**
 * The sample problems (judge/samples/problems/<name>/: the root of a test-data zip each) on a fresh
 * installation, so a new site can judge something at once. Created, shown, through the same command and
 * validation as POST /problem. Only when no problem was ever created: the problems read model is empty and
 * no problem id was handed out (so deleting every problem does not bring the samples back).
 */
import { existsSync, lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { zipSync } from 'fflate';
import { createProblemQueries } from '@otog/projections';
import { sql } from '@otog/platform/db/pool';
import { ProblemFormSchema } from '@otog/schemas/api/problem';
import type { ApiDependencies } from '../http/settings.ts';
import { createProblem } from '../modules/problems/commands.ts';
import { sampleStatement } from './sample-statements.ts';

const DEFAULT_TIME_LIMIT_MS = 1_000;
const DEFAULT_MEMORY_LIMIT_MB = 256;
/** Any constant: serializes seeding between API processes starting together. */
const SEED_LOCK = 0x07_06_5eed;

interface SampleLimits {
  readonly timeLimit: number;
  readonly memoryLimit: number;
}

/**
 * Limits per sample from expected.json: a problem whose every case runs with the same limit (five-subtask:
 * 200 ms) gets it; otherwise the defaults the expectations assume.
 */
function limitsFrom(samplesDir: string): Map<string, SampleLimits> {
  const file = join(samplesDir, 'expected.json');
  const limits = new Map<string, SampleLimits>();
  if (!existsSync(file)) return limits;
  const { cases } = JSON.parse(readFileSync(file, 'utf8')) as { cases: Array<{ problem: string; timeLimit?: number; memoryLimit?: number }> };
  const byProblem = new Map<string, Array<(typeof cases)[number]>>();
  for (const entry of cases) byProblem.set(entry.problem, [...(byProblem.get(entry.problem) ?? []), entry]);
  const common = (values: Array<number | undefined>, fallback: number) =>
    values.every((value) => value !== undefined && value === values[0]) ? (values[0] as number) : fallback;
  for (const [problem, entries] of byProblem) {
    limits.set(problem, {
      timeLimit: common(entries.map((entry) => entry.timeLimit), DEFAULT_TIME_LIMIT_MS),
      memoryLimit: common(entries.map((entry) => entry.memoryLimit), DEFAULT_MEMORY_LIMIT_MB),
    });
  }
  return limits;
}

/** The folder as a test-data zip (its regular root files; a PDF there is the statement instead). */
function packFolder(folder: string): { zip: Uint8Array; pdf: Uint8Array | undefined } {
  const files: Record<string, Uint8Array> = {};
  let pdf: Uint8Array | undefined;
  for (const name of readdirSync(folder).sort()) {
    const path = join(folder, name);
    if (!lstatSync(path).isFile()) continue;
    if (name.toLowerCase().endsWith('.pdf')) pdf ??= readFileSync(path);
    else files[name] = readFileSync(path);
  }
  return { zip: zipSync(files, { level: 6 }), pdf };
}

/**
 * Creates the samples under `samplesDir` (judge/samples: problems/<name>/ and expected.json) as `actorId`,
 * once. Returns how many were created (0 when problems exist or existed).
 */
export async function seedSampleProblems(deps: ApiDependencies, actorId: number, samplesDir: string): Promise<number> {
  const problemsDir = join(samplesDir, 'problems');
  if (!existsSync(problemsDir)) return 0;
  const queries = createProblemQueries(deps.pool);
  return deps.pool.connect(async (connection) => {
    await connection.query(sql.unsafe`SELECT pg_advisory_lock(${SEED_LOCK})`);
    try {
      const idsUsed = Boolean(await connection.oneFirst(sql.unsafe`SELECT is_called FROM problem_ids`));
      if (idsUsed || !(await queries.isEmpty())) return 0;
      const limits = limitsFrom(samplesDir);
      let created = 0;
      for (const name of readdirSync(problemsDir).sort()) {
        const folder = join(problemsDir, name);
        if (!lstatSync(folder).isDirectory()) continue;
        const limit = limits.get(name) ?? { timeLimit: DEFAULT_TIME_LIMIT_MS, memoryLimit: DEFAULT_MEMORY_LIMIT_MB };
        const form = ProblemFormSchema.parse({
          name: `Sample: ${name}`,
          sname: name,
          score: '100',
          timeLimit: String(limit.timeLimit / 1000),
          memoryLimit: String(limit.memoryLimit),
        });
        const { zip, pdf } = packFolder(folder);
        const statement = pdf ?? sampleStatement(name, form.name);
        await createProblem(deps, queries, actorId, form, { zip, pdf: statement }, { show: true });
        created += 1;
      }
      return created;
    } finally {
      await connection.query(sql.unsafe`SELECT pg_advisory_unlock(${SEED_LOCK})`);
    }
  });
}
