/**
 * Each projection slot against the head of the log: the same reading as the CLI's `projections status`
 * (listSlots), plus how old the first unfolded event is. Counting is capped so that a rebuild from the
 * start of a large log does not make every refresh of the status page scan it.
 */
import { z } from 'zod';
import { sql, type DatabasePool } from '@otog/platform/db/pool';
import type { EventStore } from '@otog/platform/eventstore/event-store';
import { encodePosition, type Position } from '@otog/platform/eventstore/position';
import { slotConsumerName, type ProjectionDefinition } from '@otog/platform/runner/projection';
import { slotConsumer } from '@otog/platform/runner/projection-runner';
import type { KafkaTransport, PartitionLag } from '@otog/platform/transport/kafka-transport';
import { listSlots, type SlotInfo } from '@otog/platform/runner/projection-slots';
import { PROJECTION_LAG_COUNT_MAX, type ProjectionSlot, type ProjectionSlotStatus, type ProjectionStatus } from '@otog/schemas/api/admin';

const LagRow = z.object({ events: z.bigint(), seconds: z.number().nullable() });

/** How many events (counted up to the cap) follow `position` in the log, and how old the first of them is. */
export async function lagOf(pool: DatabasePool, position: Position): Promise<{ events: number; seconds: number }> {
  const after = sql.fragment`(txid, gpos) > (${position.txid.toString()}::xid8, ${position.gpos.toString()}::bigint)`;
  const row = await pool.one(sql.type(LagRow)`
    SELECT
      (SELECT count(*) FROM (SELECT 1 FROM event_log WHERE ${after} LIMIT ${PROJECTION_LAG_COUNT_MAX + 1}) AS unfolded) AS events,
      (SELECT greatest(0, extract(epoch FROM now() - recorded_at))::float8 FROM event_log WHERE ${after} ORDER BY txid, gpos LIMIT 1) AS seconds`);
  return { events: Number(row.events), seconds: row.seconds ?? 0 };
}

function statusOf(slot: SlotInfo): ProjectionSlotStatus {
  if (slot.state === 'retired' || slot.checkpointStatus === 'retired') return 'retired';
  if (slot.checkpointStatus === 'faulted') return 'faulted';
  return slot.state === 'building' ? 'rebuilding' : 'running';
}

const UpdatedRow = z.object({ consumer: z.string(), updatedAt: z.string() });

/**
 * A slot reading Kafka is behind by its consumer lag, per partition: its partitions move independently, so
 * no one log position says how far it is, nor how old its oldest unapplied event is. Without Kafka in this
 * process, or with Kafka unreachable, it is unknown (null), not a failed status page.
 */
export async function kafkaSlotLag(slot: SlotInfo, projections: readonly ProjectionDefinition[], kafka: KafkaTransport | undefined): Promise<PartitionLag[] | null> {
  const definition = projections.find((projection) => projection.name === slot.projection);
  if (!kafka || !definition) return null;
  return kafka.consumerLag(slotConsumer(definition, slot.generation)).catch(() => null);
}

async function kafkaLagOf(slot: SlotInfo, projections: readonly ProjectionDefinition[], kafka: KafkaTransport | undefined) {
  const lags = await kafkaSlotLag(slot, projections, kafka);
  return lags && { events: lags.reduce((total, lag) => total + lag.messages, 0), seconds: null };
}

export async function readProjectionStatus(
  pool: DatabasePool,
  store: EventStore,
  projections: readonly ProjectionDefinition[],
  kafka?: KafkaTransport,
): Promise<ProjectionStatus> {
  const [slots, head, updated, checkedAt] = await Promise.all([
    listSlots(pool),
    store.headPosition(),
    pool.any(sql.type(UpdatedRow)`
      SELECT consumer, max(updated_at) AS "updatedAt" FROM consumer_checkpoints WHERE consumer LIKE 'projection:%' GROUP BY consumer`),
    pool.oneFirst(sql.type(z.object({ now: z.string() }))`SELECT now() AS now`),
  ]);
  const registered = new Set(projections.map((projection) => projection.name));
  const updatedAt = new Map(updated.map((row) => [row.consumer, row.updatedAt]));
  const rows: ProjectionSlot[] = [];
  for (const slot of slots) {
    const status = statusOf(slot);
    const lag = status === 'retired' ? null : slot.source === 'kafka' ? await kafkaLagOf(slot, projections, kafka) : await lagOf(pool, slot);
    rows.push({
      projection: slot.projection,
      generation: slot.generation,
      codeVersion: slot.codeVersion,
      state: slot.state,
      status,
      position: encodePosition(slot),
      eventsBehind: lag ? Math.min(lag.events, PROJECTION_LAG_COUNT_MAX) : null,
      eventsBehindCapped: lag !== null && lag.events > PROJECTION_LAG_COUNT_MAX,
      secondsBehind: lag?.seconds ?? null,
      updatedAt: updatedAt.get(slotConsumerName(slot.projection, slot.generation)) ?? null,
      error: slot.error === null || slot.error === undefined ? null : JSON.stringify(slot.error),
      registered: registered.has(slot.projection),
      manualCutover: slot.manualCutover,
    });
  }
  return { head: encodePosition(head), checkedAt, slots: rows };
}
