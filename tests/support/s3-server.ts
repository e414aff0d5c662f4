/**
 * A throwaway S3 service for the suites: the npm `s3rver` in a child process (its memory and logs stay
 * out of the test's) on a loopback port the OS picks, storing in a temp directory, with one bucket.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface LocalS3 {
  readonly endpoint: string;
  readonly bucket: string;
  /** s3rver's fixed account: it checks signatures, so these must be used. */
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  stop(): Promise<void>;
}

export async function startS3Server(options: { bucket?: string } = {}): Promise<LocalS3> {
  const bucket = options.bucket ?? 'otog-test';
  const dir = mkdtempSync(join(tmpdir(), 'otog-s3rver-'));
  const cli = join(createRequire(import.meta.url).resolve('s3rver/package.json'), '../bin/s3rver.js');
  // -p 0: the OS picks the port and s3rver prints it, so no other process can take it in between.
  const child = spawn(process.execPath, [cli, '-d', dir, '-a', '127.0.0.1', '-p', '0', '--silent', '--no-vhost-buckets', '--configure-bucket', bucket], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`s3rver did not start within 15 s: ${output}`)), 15_000);
    const read = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /S3rver listening on [^:\s]+:(\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        child.stdout.off('data', read);
        child.stderr.off('data', read);
        resolve(Number(match[1]));
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.once('error', (error) => reject(new Error(`s3rver could not start: ${error.message}`)));
    child.once('exit', (code) => reject(new Error(`s3rver exited (${code}) before listening: ${output}`)));
  }).catch(async (error: unknown) => {
    child.kill('SIGKILL');
    await exited;
    rmSync(dir, { recursive: true, force: true });
    throw error;
  });
  child.stdout.resume();
  child.stderr.resume();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bucket,
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
