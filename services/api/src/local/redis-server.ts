/**
 * A throwaway Redis (Debian's redis-server) on a free loopback port, without persistence: for the test
 * suites and for `npm run cluster` on one machine, where it carries pub/sub, presence and rate limits.
 */
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { freePort } from './free-port.ts';

export interface LocalRedis {
  readonly url: string;
  stop(): Promise<void>;
}

export async function startRedisServer(options: { dir: string }): Promise<LocalRedis> {
  const port = await freePort();
  const redis = spawn('redis-server', ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no', '--dir', options.dir], {
    stdio: 'ignore',
  });
  await new Promise<void>((resolve, reject) => {
    redis.once('error', (error) => reject(new Error(`redis-server could not start (is the redis-server package installed?): ${error.message}`)));
    redis.once('spawn', () => resolve());
  });
  const exited = new Promise<void>((resolve) => redis.once('exit', () => resolve()));
  // Listening takes a moment after the spawn: the first client must not meet a refused connection.
  for (let waited = 0; !(await accepts(port)); waited += 50) {
    if (waited > 10_000 || redis.exitCode !== null) {
      redis.kill('SIGKILL');
      throw new Error(`redis-server did not listen on port ${port}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      if (redis.exitCode === null && redis.signalCode === null) redis.kill('SIGTERM');
      await exited;
    },
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
