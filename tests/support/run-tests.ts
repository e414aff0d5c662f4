/**
 * `npm test`: starts the services the suites need when the environment does not provide them
 * (DATABASE_URL, REDIS_URL, KAFKA_BROKERS), runs every vitest suite, stops what it started, and ends
 * with one line `N passed, N failed` (just before it, `N skipped: ...` names any skipped test, so a skip is
 * never silent).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startLocalServices } from './local-services.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const artifacts = join(root, '.test-artifacts');
mkdirSync(artifacts, { recursive: true });
// One report per run, so two runs side by side never read each other's counts.
const report = join(artifacts, `vitest-report-${process.pid}.json`);

function countResults(vitestExitCode: number): { passed: number; failed: number; skipped: string[] } {
  try {
    const json = JSON.parse(readFileSync(report, 'utf8')) as {
      numPassedTests: number;
      numFailedTests: number;
      testResults: Array<{ name: string; status: string; assertionResults: Array<{ status: string; fullName: string }> }>;
    };
    const skipped = json.testResults.flatMap((file) =>
      file.assertionResults
        .filter((test) => test.status === 'skipped' || test.status === 'pending' || test.status === 'todo')
        .map((test) => `${file.name.replace(`${root}`, '')} > ${test.fullName}`),
    );
    // A file that failed outside its tests (load error, failing hook) still counts as one failure.
    const brokenFiles = json.testResults.filter(
      (file) => file.status === 'failed' && !file.assertionResults.some((test) => test.status === 'failed'),
    ).length;
    const failed = json.numFailedTests + brokenFiles;
    // Unhandled errors fail the run without failing a test: never report such a run as all green.
    return { passed: json.numPassedTests, failed: failed === 0 && vitestExitCode !== 0 ? 1 : failed, skipped };
  } catch {
    return { passed: 0, failed: 1, skipped: [] };
  } finally {
    rmSync(report, { force: true });
  }
}

async function main(): Promise<number> {
  execFileSync('bash', [join(root, 'infra/scripts/ensure-packages.sh')], { stdio: 'inherit' });
  const services = await startLocalServices({
    postgres: !process.env.DATABASE_URL,
    redis: !process.env.REDIS_URL,
    kafka: !process.env.KAFKA_BROKERS,
  });
  const stopOnSignal = () => void services.stop().then(() => process.exit(130));
  process.once('SIGINT', stopOnSignal);
  process.once('SIGTERM', stopOnSignal);
  try {
    const vitest = join(root, 'node_modules/vitest/vitest.mjs');
    const args = [vitest, 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...process.argv.slice(2)];
    const code = await new Promise<number>((resolve) => {
      const child = spawn(process.execPath, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...services.env } });
      child.once('exit', (status) => resolve(status ?? 1));
    });
    const { passed, failed, skipped } = countResults(code);
    if (skipped.length) console.log(`${skipped.length} skipped: ${skipped.join('; ')}`);
    console.log(`${passed} passed, ${failed} failed`);
    return code === 0 && failed === 0 ? 0 : 1;
  } finally {
    await services.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    console.log('0 passed, 1 failed');
    process.exit(1);
  },
);
