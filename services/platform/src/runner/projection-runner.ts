import type { Logger } from 'pino';
import type { NotificationListener } from '../db/listen.ts';
import type { DatabasePool } from '../db/pool.ts';
import type { EventStore } from '../eventstore/event-store.ts';
import { comparePositions, type Position } from '../eventstore/position.ts';
import type { EventTransport, SubscribeOptions, Subscription } from '../transport/event-transport.ts';
import type { KafkaTransport } from '../transport/kafka-transport.ts';
import type { Notifier } from '../notices/notice.ts';
import { readCheckpoint } from './checkpoints.ts';
import { createCheckpointWatch, foldedCheck } from './wait.ts';
import type { EventConsumer } from './consumer.ts';
import { isInScopes, slotConsumerName, slotTables, type ProjectionDefinition } from './projection.ts';
import { cutover, dropRetiredSlots, ensureCodeSlot, listSlots, RETIRED_GRACE_MS } from './projection-slots.ts';

export interface ProjectionRunnerOptions {
  readonly pool: DatabasePool;
  readonly store: EventStore;
  /** The Postgres log: what every slot folds from, unless it reads Kafka. */
  readonly transport: EventTransport;
  /**
   * Scaled mode: the live slots of projections that declare their `scopes` read those kinds' Kafka topics
   * instead of the log, handed over where their log checkpoint is. Building slots still fold the log.
   */
  readonly kafka?: KafkaTransport;
  readonly projections: readonly ProjectionDefinition[];
  readonly logger?: Logger;
  /** How often slots are re-read (a rebuild or cutover done by another process is picked up). */
  readonly refreshIntervalMs?: number;
  /** Switch a building slot live as soon as it has caught up with the log (not one rebuilt for a manual cutover). */
  readonly autoCutover?: boolean;
  /**
   * Drop the tables of this runner's retired slots this long after their cutover (default RETIRED_GRACE_MS);
   * null keeps them until `projections drop-retired`.
   */
  readonly dropRetiredAfterMs?: number | null;
  /**
   * false: fold nothing (a node without the projector role) and only answer waitFor, from the checkpoints
   * the folding processes move. Default true.
   */
  readonly fold?: boolean;
  readonly subscribeOptions?: SubscribeOptions;
  /** Where the live slots' notices go once their batch has committed. */
  readonly notifier?: Notifier;
  /**
   * Wakes waits on slots folded in another process at their commits, all of a slot's waits sharing one read
   * of its checkpoint; without it each wait polls the checkpoint.
   */
  readonly listener?: NotificationListener;
}

export interface ProjectionRunner {
  /** Resolves once the projection's live slot has applied `event` (read-your-writes). */
  waitFor(projection: string, event: Position & { scope: string }, timeoutMs?: number): Promise<void>;
  /** Re-reads slots now instead of at the next refresh. */
  refresh(): Promise<void>;
  stop(): Promise<void>;
}

export function slotConsumer(definition: ProjectionDefinition, generation: number): EventConsumer {
  const tables = slotTables(definition, generation);
  return {
    name: slotConsumerName(definition.name, generation),
    types: definition.handles,
    ...(definition.scopes ? { scopeKinds: definition.scopes } : {}),
    handle: (tx, events) => definition.apply(tx, events, tables),
  };
}

/**
 * Keeps the live and building slots of the given projections' code versions folding (from the log, or the live
 * slots of scoped projections from Kafka when it is given), and drops retired slots once their grace period is over.
 */
export async function startProjectionRunner(options: ProjectionRunnerOptions): Promise<ProjectionRunner> {
  const { pool, store, transport, projections, logger } = options;
  const byName = new Map(projections.map((p) => [p.name, p]));
  if (byName.size !== projections.length) throw new Error('two projections share a name');
  const running = new Map<string, { subscription: Subscription; projection: string; version: number; source: EventTransport['kind'] }>();
  const notifier = options.notifier;
  /** The slot readers read, per projection, as of the last refresh: only it publishes notices. */
  const liveVersions = new Map<string, number>();
  /** Projections whose slots are all of another code version: said once, not at every refresh. */
  const idle = new Set<string>();
  /** Slots handed over to Kafka that this process cannot fold (no Kafka here): said once. */
  const stranded = new Set<string>();
  const kafka = options.kafka;
  /** Where a slot folds from: Kafka for the live slot of a projection that declares its scopes (and when Kafka is there). */
  const sourceOf = (definition: ProjectionDefinition, version: number): EventTransport =>
    kafka && definition.scopes && liveVersions.get(definition.name) === version ? kafka : transport;
  const dropAfterMs = options.dropRetiredAfterMs === undefined ? RETIRED_GRACE_MS : options.dropRetiredAfterMs;
  const watch = options.listener ? createCheckpointWatch(pool, options.listener) : undefined;
  let stopped = false;
  let refreshing: Promise<void> | undefined;

  const subscribeSlot = async (definition: ProjectionDefinition, version: number) => {
    const name = slotConsumerName(definition.name, version);
    const source = sourceOf(definition, version);
    const current = running.get(name);
    const failure = current?.subscription.failure?.();
    if (current?.source === source.kind && !failure) return;
    if (current) {
      // The slot went live (its log subscription stops before Kafka takes over from its checkpoint), or its
      // consumer crashed for good: subscribe again.
      if (failure) logger?.warn({ projection: definition.name, version, err: failure }, 'projection slot consumer failed; subscribing again');
      running.delete(name);
      await current.subscription.stop().catch(() => undefined);
    }
    const subscription = await source.subscribe(slotConsumer(definition, version), {
      ...options.subscribeOptions,
      onBatch: (batch) => {
        options.subscribeOptions?.onBatch?.(batch);
        // Committed by now. Only the slot readers read announces: a rebuild replaying old events stays quiet.
        if (notifier && batch.notices.length > 0 && liveVersions.get(definition.name) === version) {
          notifier.publish(batch.notices).catch((error: unknown) => logger?.warn({ err: String(error), projection: definition.name }, 'publishing notices failed'));
        }
      },
    });
    running.set(name, { subscription, projection: definition.name, version, source: source.kind });
    logger?.info({ projection: definition.name, version, transport: source.kind }, 'projection slot started');
  };

  const refreshOnce = async () => {
    const wanted = new Map<ProjectionDefinition, number[]>();
    for (const definition of projections) wanted.set(definition, await ensureCodeSlot(pool, definition));
    const slots = await listSlots(pool);
    liveVersions.clear();
    for (const slot of slots) {
      if (slot.state === 'live') liveVersions.set(slot.projection, slot.generation);
      const name = slotConsumerName(slot.projection, slot.generation);
      if (!kafka && slot.source === 'kafka' && slot.state !== 'retired' && byName.get(slot.projection)?.version === slot.codeVersion && !stranded.has(name)) {
        stranded.add(name);
        logger?.error({ projection: slot.projection, generation: slot.generation }, 'this slot reads Kafka now and this process has no KAFKA_BROKERS: it folds nothing of it');
      }
    }
    for (const [definition, versions] of wanted) {
      for (const version of versions) {
        // One slot that cannot subscribe (Kafka unreachable) leaves the others folding; the next refresh tries again.
        await subscribeSlot(definition, version).catch((error: unknown) =>
          logger?.error({ projection: definition.name, version, err: String(error) }, 'projection slot could not subscribe'),
        );
      }
    }
    // Retired (or dropped) slots, whoever retired them, stop folding here.
    const folded = new Set([...wanted].flatMap(([definition, generations]) => generations.map((g) => slotConsumerName(definition.name, g))));
    for (const [name, entry] of running) {
      if (folded.has(name)) continue;
      running.delete(name);
      await entry.subscription.stop();
      logger?.info({ projection: entry.projection, generation: entry.version }, 'projection slot retired');
    }
    for (const [definition, generations] of wanted) {
      if (generations.length > 0) idle.delete(definition.name);
      else if (!idle.has(definition.name)) {
        idle.add(definition.name);
        logger?.warn({ projection: definition.name, codeVersion: definition.version }, 'no slot of this code version: another version\'s nodes fold this projection');
      }
    }
    for (const slot of slots) {
      const entry = running.get(slotConsumerName(slot.projection, slot.generation));
      const definition = byName.get(slot.projection);
      if (options.autoCutover !== false && definition && slot.state === 'building' && !slot.manualCutover && entry && slot.checkpointStatus === 'running') {
        const head = await store.headPosition();
        if (comparePositions(slot, head) >= 0) {
          const { retired } = await cutover(pool, store, definition, slot.generation).catch((error: unknown) => {
            logger?.warn({ projection: slot.projection, err: String(error) }, 'cutover deferred');
            return { retired: undefined };
          });
          if (retired !== undefined) logger?.info({ projection: slot.projection, live: slot.generation, retired }, 'projection cut over');
        }
      }
    }
    if (dropAfterMs !== null) {
      const dropped = await dropRetiredSlots(pool, { projections: [...byName.keys()], olderThanMs: dropAfterMs }).catch((error: unknown) => {
        logger?.warn({ err: String(error) }, 'dropping retired slots deferred');
        return [];
      });
      for (const slot of dropped) logger?.info(slot, 'retired projection slot dropped');
    }
  };
  const refresh = () => {
    refreshing ??= refreshOnce().finally(() => (refreshing = undefined));
    return refreshing;
  };

  let timer: NodeJS.Timeout | undefined;
  if (options.fold ?? true) {
    await refresh();
    timer = setInterval(() => {
      if (!stopped) refresh().catch((error: unknown) => logger?.error({ err: String(error) }, 'projection refresh failed'));
    }, options.refreshIntervalMs ?? 1_000);
  }

  return {
    refresh,
    async waitFor(projection, event, timeoutMs = 10_000) {
      const definition = byName.get(projection);
      // A projection that declares its scopes does nothing with events of other kinds (and Kafka never brings them).
      if (definition?.scopes && !isInScopes(definition.scopes, event.scope)) return;
      const [live] = (await listSlots(pool, projection)).filter((s) => s.state === 'live');
      if (!live) throw new Error(`projection ${projection} has no live slot`);
      const name = slotConsumerName(projection, live.generation);
      const entry = running.get(name);
      if (entry) return entry.subscription.waitFor(event, timeoutMs);
      // The live slot is folded by another process (or older code): watch its checkpoint instead.
      if (live.source === 'kafka') {
        if (!kafka) throw new Error(`projection ${projection} reads Kafka and this process has no KAFKA_BROKERS to follow it`);
        return kafka.waitForConsumer(name, event, timeoutMs);
      }
      const folded = foldedCheck(store, pool, definition?.handles);
      if (watch) return watch.wait(name, event, folded, timeoutMs);
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const checkpoint = await readCheckpoint(pool, { consumer: name, source: 'pglog', part: '*' });
        if (checkpoint && (await folded(checkpoint, event))) return;
        if (Date.now() > deadline) throw new Error(`projection ${projection} did not reach the position within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async stop() {
      stopped = true;
      clearInterval(timer);
      watch?.close();
      await refreshing?.catch(() => undefined);
      await Promise.all([...running.values()].map((entry) => entry.subscription.stop()));
      running.clear();
    },
  };
}
