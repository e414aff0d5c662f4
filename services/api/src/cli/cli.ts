import { parseArgs } from 'node:util';
import { SingleBar } from 'cli-progress';
import type { Logger } from 'pino';
import { sql, type DatabasePool } from '@otog/platform/db/pool';
import type { NotificationListener } from '@otog/platform/db/listen';
import type { EventStore } from '@otog/platform/eventstore/event-store';
import { encodePosition, type Position } from '@otog/platform/eventstore/position';
import type { ProjectionDefinition } from '@otog/platform/runner/projection';
import { slotConsumerName } from '@otog/platform/runner/projection';
import { slotConsumer } from '@otog/platform/runner/projection-runner';
import { createRebuildSlot, cutover, dropRetiredSlots, listSlots, RETIRED_GRACE_MS } from '@otog/platform/runner/projection-slots';
import { faultedPart, skipNextEvent } from '@otog/platform/runner/skip';
import { createPgLogTransport } from '@otog/platform/transport/pglog-transport';
import { contestScoresProjection } from '@otog/projections';
import { rebuildContestScores, type ContestRebuild } from '@otog/projections/contest-scores/contest-rebuild';
import { previewRatings, recomputeRatings } from '@otog/projections/ratings/ratings-operator';
import { addWorker, listWorkers, revokeWorker, WorkerNameError } from '../judging/worker-tokens.ts';

export const usage = `usage: npm run cli -- <command>

  migrate                                     apply pending database migrations
  projections status                          every slot: state, code version, position, events behind,
                                              faults
  projections rebuild <name> [--no-cutover]   build a new slot from the whole log beside the live one,
                                              then switch to it (--no-cutover: it stays building, kept
                                              current by the projectors, until projections cutover)
  projections rebuild scoreboard --contest <id>
                                              rebuild one contest's scores in the live slot from the log
                                              while every other contest goes on
  projections cutover <name> <slot> [--force]
                                              make a building slot live (refused while it lags); the
                                              old one is retired, its tables kept until dropped
  projections drop-retired [<name>] [--older-than <minutes>]
                                              drop the tables of slots retired at least that long ago
                                              (default ${RETIRED_GRACE_MS / 60_000}; the projector drops them then too)
  projections skip <name> [--version <slot>]  move a faulted slot past the event it fails on (logged)
  ratings recompute [--from <contestId>]      rate every finished rated contest again, from that one
                                              (default: the first) on, in the live slot
  ratings preview <contestId>                 what the contest would do to its participants' ratings
                                              if it were final now (changes nothing)
  judge add-worker <name> [--rotate]          make a judge worker and print its token once (--rotate:
                                              replace an existing worker's token and reactivate it)
  judge revoke-worker <name>                  refuse the worker's token from now on
  judge workers                               list judge workers and whether they are active
`;

export interface CliContext {
  readonly pool: DatabasePool;
  readonly store: EventStore;
  readonly listener: NotificationListener;
  readonly projections: readonly ProjectionDefinition[];
  readonly logger: Logger;
  readonly out: NodeJS.WritableStream;
  /** Progress bars go here (stderr in a terminal). */
  readonly progress: NodeJS.WritableStream;
  readonly migrate: () => Promise<{ applied: string[]; version: number }>;
}

export class UsageError extends Error {}

/** Runs one operator command; returns the process exit code. */
export async function runCli(argv: readonly string[], ctx: CliContext): Promise<number> {
  const { positionals, values } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      'no-cutover': { type: 'boolean' },
      force: { type: 'boolean' },
      version: { type: 'string' },
      'older-than': { type: 'string' },
      rotate: { type: 'boolean' },
      contest: { type: 'string' },
      from: { type: 'string' },
    },
  });
  const [command, sub, name, extra] = positionals;
  const print = (line: string) => ctx.out.write(`${line}\n`);
  const projection = (): ProjectionDefinition => {
    const found = ctx.projections.find((p) => p.name === name);
    if (!found) {
      const known = ctx.projections.map((p) => p.name).join(', ') || '(none registered)';
      throw new UsageError(`unknown projection "${name ?? ''}"; known: ${known}`);
    }
    return found;
  };

  if (command === 'migrate' && !sub) {
    const { applied, version } = await ctx.migrate();
    print(applied.length ? `applied ${applied.join(', ')}; schema version ${version}` : `schema is up to date (version ${version})`);
    return 0;
  }
  if (command === 'judge') return runJudgeCommand(ctx, print, sub, name, extra, values.rotate ?? false);
  if (command === 'ratings') return runRatingsCommand(ctx, print, sub, name, values.from);
  if (command !== 'projections') throw new UsageError(`unknown command "${positionals.join(' ')}"`);

  switch (sub) {
    case 'status':
      await printStatus(ctx, print);
      return 0;
    case 'rebuild': {
      if (name === 'scoreboard' || values.contest !== undefined) return rebuildOneContest(ctx, print, name, values.contest);
      const definition = projection();
      const generation = await createRebuildSlot(ctx.pool, definition, { manualCutover: values['no-cutover'] ?? false });
      print(`building ${definition.name} v${generation} (code version ${definition.version}) from the log`);
      await buildToHead(ctx, definition, generation);
      if (values['no-cutover']) {
        print(`${definition.name} v${generation} is built; switch with: projections cutover ${definition.name} ${generation}`);
        return 0;
      }
      print(liveNow(definition.name, generation, await cutover(ctx.pool, ctx.store, definition, generation, { force: true })));
      return 0;
    }
    case 'cutover': {
      const definition = projection();
      const generation = Number(extra);
      if (!Number.isInteger(generation) || generation < 1) throw new UsageError('cutover needs a slot number');
      print(liveNow(definition.name, generation, await cutover(ctx.pool, ctx.store, definition, generation, { force: values.force ?? false })));
      return 0;
    }
    case 'drop-retired': {
      if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`);
      const minutes = values['older-than'] === undefined ? RETIRED_GRACE_MS / 60_000 : Number(values['older-than']);
      if (!Number.isFinite(minutes) || minutes < 0) throw new UsageError('--older-than needs a number of minutes');
      const dropped = await dropRetiredSlots(ctx.pool, { ...(name === undefined ? {} : { projections: [projection().name] }), olderThanMs: minutes * 60_000 });
      for (const slot of dropped) ctx.logger.warn(slot, 'retired projection slot dropped by operator');
      print(dropped.length ? `dropped ${dropped.map((s) => `${s.projection} v${s.generation}`).join(', ')}` : `no slot retired ${minutes} minutes ago or more`);
      return 0;
    }
    case 'skip': {
      const definition = projection();
      const slots = await listSlots(ctx.pool, definition.name);
      const version = values.version ? Number(values.version) : slots.find((s) => s.checkpointStatus === 'faulted')?.generation;
      if (!version) throw new UsageError(`${definition.name} has no faulted slot`);
      const consumer = slotConsumerName(definition.name, version);
      const skipped = await skipNextEvent(ctx.pool, ctx.store, (await faultedPart(ctx.pool, consumer)) ?? { consumer, source: 'pglog', part: '*' });
      ctx.logger.warn({ projection: definition.name, version, ...skipped }, 'event skipped by operator');
      const what = skipped.eventId ? `${skipped.type ?? 'event'} ${skipped.eventId} at ${skipped.position ?? '?'}` : `the Kafka message at offset ${skipped.offset}`;
      print(`skipped ${what}; ${definition.name} v${version} resumes`);
      return 0;
    }
    default:
      throw new UsageError(`unknown projections command "${sub ?? ''}"`);
  }
}

async function runJudgeCommand(
  ctx: CliContext,
  print: (line: string) => void,
  sub: string | undefined,
  name: string | undefined,
  extra: string | undefined,
  rotate: boolean,
): Promise<number> {
  if (extra !== undefined) throw new UsageError(`unexpected argument "${extra}"`);
  const needName = () => {
    if (!name) throw new UsageError(`judge ${sub ?? ''} needs a worker name`);
    return name;
  };
  switch (sub) {
    case 'add-worker': {
      const worker = needName();
      let token: string;
      try {
        token = await addWorker(ctx.pool, worker, { rotate });
      } catch (error) {
        if (error instanceof WorkerNameError) throw new UsageError(error.message);
        throw error;
      }
      ctx.logger.info({ worker, rotated: rotate }, 'judge worker token issued');
      print(`judge worker "${worker}" ${rotate ? 'has a new token' : 'added'}; its token (shown only now, store it safely):`);
      print(token);
      return 0;
    }
    case 'revoke-worker': {
      const worker = needName();
      if (!(await revokeWorker(ctx.pool, worker))) throw new Error(`no active judge worker "${worker}"`);
      ctx.logger.warn({ worker }, 'judge worker revoked');
      print(`judge worker "${worker}" revoked; its token is refused from now on`);
      return 0;
    }
    case 'workers': {
      if (name !== undefined) throw new UsageError(`unexpected argument "${name}"`);
      const workers = await listWorkers(ctx.pool);
      if (workers.length === 0) print('no judge workers (add one with: judge add-worker <name>)');
      for (const worker of workers) {
        const since = worker.revokedAt === null ? `since ${worker.createdAt}` : `at ${worker.revokedAt}`;
        print(`${worker.name}  ${worker.state.padEnd(7)} ${since}`);
      }
      return 0;
    }
    default:
      throw new UsageError(`unknown judge command "${sub ?? ''}"`);
  }
}

async function rebuildOneContest(ctx: CliContext, print: (line: string) => void, name: string | undefined, contest: string | undefined): Promise<number> {
  if (name !== 'scoreboard' && name !== contestScoresProjection.name) throw new UsageError('--contest goes with: projections rebuild scoreboard --contest <id>');
  const contestId = Number(contest);
  if (!Number.isInteger(contestId) || contestId < 1 || contestId > 2_147_483_647) throw new UsageError('rebuild scoreboard needs --contest <id>');
  const bar = new SingleBar({
    stream: ctx.progress,
    format: `contest ${contestId} scores [{bar}] {percentage}% {value}/{total} events`,
    noTTYOutput: true,
    notTTYSchedule: 2_000,
  });
  bar.start(1, 0);
  let rebuilt: ContestRebuild;
  try {
    rebuilt = await rebuildContestScores(ctx.pool, ctx.store, contestId, (done, total) => {
      bar.setTotal(total);
      bar.update(done);
    });
  } finally {
    bar.stop();
  }
  ctx.logger.info({ contestId, ...rebuilt }, 'contest scores rebuilt by operator');
  print(`contest ${contestId}: ${rebuilt.events} events folded into ${rebuilt.submissions} submissions and ${rebuilt.cells} scores`);
  return 0;
}

/** A positive int4 id from an argument, or a usage error naming it. */
function idArgument(value: string | undefined, what: string): number {
  const id = Number(value);
  if (value === undefined || !/^\d+$/.test(value) || !Number.isInteger(id) || id < 1 || id > 2_147_483_647) throw new UsageError(`${what} must be a contest id`);
  return id;
}

async function runRatingsCommand(ctx: CliContext, print: (line: string) => void, sub: string | undefined, contest: string | undefined, from: string | undefined): Promise<number> {
  if (sub === 'recompute' && contest === undefined) {
    const fromContestId = from === undefined ? null : idArgument(from, '--from');
    const bar = new SingleBar({ stream: ctx.progress, format: 'ratings [{bar}] {percentage}% {value}/{total} contests', noTTYOutput: true, notTTYSchedule: 2_000 });
    bar.start(1, 0);
    let done: { contests: number; results: number };
    try {
      done = await recomputeRatings(ctx.pool, fromContestId, (rated, total) => {
        bar.setTotal(total);
        bar.update(rated);
      });
    } finally {
      bar.stop();
    }
    ctx.logger.info({ fromContestId, ...done }, 'ratings recomputed by operator');
    print(`${done.contests} rated contests rated again (${done.results} results)`);
    return 0;
  }
  if (sub === 'preview') {
    const preview = await previewRatings(ctx.pool, idArgument(contest, 'ratings preview <contestId>'));
    if (!preview.rated) print('this contest is unrated: it changes no rating; the figures are what it would do if it were rated');
    for (const row of preview.rows) {
      const before = row.before === null ? 'new' : String(row.before);
      const change = row.before === null ? '' : ` (${row.after >= row.before ? '+' : ''}${row.after - row.before})`;
      print(`${String(row.rank).padStart(5)}  ${row.username.padEnd(24)} ${before.padStart(5)} -> ${row.after}${change}`);
    }
    if (preview.rows.length === 0) print('no participants');
    return 0;
  }
  throw new UsageError(`unknown command "ratings ${sub ?? ''}"`);
}

function liveNow(projection: string, generation: number, { retired }: { retired: number | null }): string {
  const old = retired === null ? '' : `; v${retired} retired (its tables stay until projections drop-retired, or ${RETIRED_GRACE_MS / 60_000} minutes)`;
  return `${projection} v${generation} is live${old}`;
}

async function eventsAfter(pool: DatabasePool, position: Position): Promise<number> {
  return Number(
    await pool.oneFirst(sql.unsafe`
      SELECT count(*) FROM event_log WHERE (txid, gpos) > (${position.txid.toString()}::xid8, ${position.gpos.toString()}::bigint)`),
  );
}

async function printStatus(ctx: CliContext, print: (line: string) => void): Promise<void> {
  const slots = await listSlots(ctx.pool);
  const registered = new Set(ctx.projections.map((p) => p.name));
  if (slots.length === 0) print('no projection slots yet (they are created when the runner first starts)');
  for (const slot of slots) {
    const behind =
      slot.state === 'retired'
        ? `-  retired at ${slot.retiredAt ?? '?'}`
        : slot.source === 'kafka'
          ? '?  (reads Kafka: its lag is otog_kafka_consumer_lag_messages and the operator page)'
          : String(await eventsAfter(ctx.pool, slot));
    const fault = slot.checkpointStatus === 'faulted' ? `  FAULTED ${JSON.stringify(slot.error)}` : '';
    const unknown = registered.has(slot.projection) ? '' : '  (not in this code)';
    const manual = slot.manualCutover ? '  (waits for projections cutover)' : '';
    print(`${slot.projection} v${slot.generation}  ${slot.state.padEnd(8)} code ${slot.codeVersion}  at ${encodePosition(slot)}  behind ${behind}${fault}${unknown}${manual}`);
  }
}

/** Folds a slot in this process until it reaches the head of the log as it was when we started. */
async function buildToHead(ctx: CliContext, definition: ProjectionDefinition, version: number): Promise<void> {
  const target = await ctx.store.headPosition();
  const total = await eventsAfter(ctx.pool, { txid: 0n, gpos: 0n });
  const bar = new SingleBar({
    stream: ctx.progress,
    format: `${definition.name} v${version} [{bar}] {percentage}% {value}/{total} events {eta_formatted} left`,
    noTTYOutput: true,
    notTTYSchedule: 2_000,
  });
  bar.start(Math.max(total, 1), 0);
  let done = 0;
  const transport = createPgLogTransport({ pool: ctx.pool, store: ctx.store, listener: ctx.listener, pollIntervalMs: 100 });
  const subscription = await transport.subscribe(slotConsumer(definition, version), {
    batchSize: 2_000,
    onBatch: ({ scanned }) => {
      done += scanned;
      bar.update(Math.min(done, total));
    },
  });
  try {
    await subscription.waitFor({ ...target, scope: '' }, 24 * 3_600_000);
    bar.update(total);
  } finally {
    bar.stop();
    await subscription.stop();
  }
}
