/**
 * The judge worker process: `node judge/src/main.ts` (configuration in judge/src/config.ts). SIGTERM or
 * SIGINT drains (no new claims, running submissions finish and report); a second signal exits at once
 * (the leases of unfinished submissions expire and other workers take them over).
 */
import { JudgeConfigError, loadWorkerConfig } from './config.ts';
import { checkerLimits } from './languages/index.ts';
import { jsonLogger, startWorker } from './worker/index.ts';
import { startJudgeOps } from './worker/ops.ts';

async function main(): Promise<number> {
  let config;
  try {
    config = loadWorkerConfig();
  } catch (error) {
    if (!(error instanceof JudgeConfigError)) throw error;
    process.stderr.write(`otog-judge: ${error.message}\n`);
    return 1;
  }
  const logger = jsonLogger();
  // Signals are taken before the sandbox exists: one arriving while it is being set up (mounts, cgroups,
  // calibration) must still end in a drain that takes them down again, not in a bare exit.
  let signals = 0;
  let stop: (() => Promise<void>) | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    signals += 1;
    if (signals > 1) {
      logger.warn('second signal: exiting without draining', { signal });
      process.exit(1);
    }
    logger.info('signal received: draining', { signal });
    void stop?.();
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  // Up before the sandbox: an orchestrator sees a host that is setting up as alive but not ready.
  const ops = config.ops ? await startJudgeOps({ ...config.ops, worker: config.worker }) : undefined;
  if (config.stopWithStdin) {
    // The parent holds the other end of the pipe: it closes when the parent exits, however it exits.
    process.stdin
      .once('close', () => {
        if (signals > 0) return;
        signals = 1;
        logger.warn('stdin closed (the process that started this worker is gone): draining');
        void stop?.();
      })
      .resume();
  }
  const worker = await startWorker({
    apiUrl: config.apiUrl,
    worker: config.worker,
    token: config.token,
    slots: config.slots,
    cacheDir: config.cacheDir,
    cacheKeep: config.cacheKeep,
    claimWaitMs: config.claimWaitMs,
    checkerLimits: { ...checkerLimits, cpuMs: config.checkerTimeLimitMs, wallMs: config.checkerTimeLimitMs },
    sandbox: config.sandbox,
    logger,
    ...(ops ? { onTaskEnded: ops.taskEnded } : {}),
  });
  ops?.attach(worker);
  stop = () => {
    ops?.markDraining();
    return worker.stop();
  };
  if (signals > 0) void stop();
  await worker.done;
  await ops?.close();
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`otog-judge: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
