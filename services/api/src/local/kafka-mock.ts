/**
 * librdkafka's mock Kafka cluster (infra/kafka-mock/kmock.c), a real Kafka-protocol broker on loopback:
 * for the test suites and for `npm run cluster` on one machine. Built with the system compiler on first use.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const SOURCE = fileURLToPath(new URL('../../../../infra/kafka-mock/kmock.c', import.meta.url));

export interface KafkaMock {
  readonly bootstrap: string;
  /** Sends one command line (see kmock.c) and resolves with the reply line. */
  command(line: string): Promise<string>;
  stop(): Promise<void>;
}

/** Builds kmock with the system compiler (needs librdkafka-dev) and starts it. */
export async function startKafkaMock(options: { brokers?: number; topics?: string[]; buildDir: string }): Promise<KafkaMock> {
  mkdirSync(options.buildDir, { recursive: true });
  const binary = join(options.buildDir, 'kmock');
  try {
    execFileSync('cc', ['-O2', '-o', binary, SOURCE, '-lrdkafka'], { stdio: 'pipe' });
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString() ?? String(error);
    throw new Error(`building the Kafka mock failed (is librdkafka-dev installed?): ${stderr}`, { cause: error });
  }
  const child = spawn(binary, [String(options.brokers ?? 3), ...(options.topics ?? [])], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines: string[] = [];
  let waiting: ((line: string) => void) | undefined;
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (waiting) {
      const resolve = waiting;
      waiting = undefined;
      resolve(line);
    } else lines.push(line);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const nextLine = () =>
    lines.length > 0
      ? Promise.resolve(lines.shift()!)
      : Promise.race([
          new Promise<string>((resolve) => (waiting = resolve)),
          exited.then(() => {
            throw new Error('the Kafka mock exited');
          }),
        ]);
  const bootstrap = await nextLine();
  return {
    bootstrap,
    command: (line) => {
      child.stdin.write(`${line}\n`);
      return nextLine();
    },
    stop: async () => {
      if (child.exitCode === null) child.stdin.end('quit\n');
      await exited;
    },
  };
}
