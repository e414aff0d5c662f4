/**
 * The gauges each role adds to its process's metrics, read from the database when scraped: the judge
 * queue (judge-queue role), projection lag and Kafka consumer lag (projector), relay lag (relay). Every process with the role
 * reports the same shared figures, so standbys can be scraped and alerted on like the active one.
 */
import { z } from 'zod';
import { sql, type DatabasePool } from '@otog/platform/db/pool';
import type { EventStore } from '@otog/platform/eventstore/event-store';
import { LOG_START, type Position } from '@otog/platform/eventstore/position';
import { KAFKA_RELAY_NAME } from '@otog/platform/relay/kafka-relay';
import { listSlots } from '@otog/platform/runner/projection-slots';
import type { KafkaTransport } from '@otog/platform/transport/kafka-transport';
import { allProjections } from '@otog/projections';
import type { Role } from '../config.ts';
import { kafkaSlotLag, lagOf, readProjectionStatus } from '../modules/admin/projection-status.ts';
import type { ProjectionSlot } from '@otog/schemas/api/admin';
import type { ProcessMetrics } from './metrics.ts';

const QueueRow = z.object({ state: z.string(), tasks: z.number(), oldest: z.number().nullable() });
const CheckpointRow = z.object({ txid: z.bigint(), gpos: z.bigint() });

/** How far the Kafka relay has published the log (the start of the log before its first batch). */
export async function relayPosition(pool: DatabasePool): Promise<Position> {
  const checkpoint = await pool.maybeOne(sql.type(CheckpointRow)`
    SELECT last_txid::text::bigint AS txid, last_gpos AS gpos FROM consumer_checkpoints
    WHERE consumer = ${KAFKA_RELAY_NAME} AND source = 'pglog' AND part = '*'`);
  return checkpoint ?? LOG_START;
}

export function addRoleGauges(
  metrics: ProcessMetrics,
  deps: { pool: DatabasePool; store: EventStore; roles: readonly Role[]; kafka?: KafkaTransport | undefined },
): void {
  const { pool, store, roles, kafka } = deps;
  if (roles.includes('judge-queue')) {
    const queue = async () =>
      pool.any(sql.type(QueueRow)`
        SELECT state, count(*)::int AS tasks, extract(epoch FROM now() - min(updated_at))::float8 AS oldest
        FROM judge_tasks WHERE state IN ('queued', 'leased') GROUP BY state`);
    metrics.addGauge({
      name: 'otog_judge_queue_tasks',
      help: 'Judge tasks waiting for a worker (queued) and being judged (leased)',
      labelNames: ['state'],
      read: async () => {
        const rows = await queue();
        return ['queued', 'leased'].map((state) => ({ labels: { state }, value: rows.find((row) => row.state === state)?.tasks ?? 0 }));
      },
    });
    metrics.addGauge({
      name: 'otog_judge_queue_oldest_seconds',
      help: 'How long the oldest queued judge task has waited',
      read: async () => [{ value: (await queue()).find((row) => row.state === 'queued')?.oldest ?? 0 }],
    });
  }
  if (roles.includes('projector')) {
    // One reading per scrape serves the three gauges (a Kafka-read slot's lag asks the brokers).
    let reading: { at: number; slots: Promise<ProjectionSlot[]> } | undefined;
    const slots = () => {
      if (!reading || Date.now() - reading.at > 1_000) {
        const current = { at: Date.now(), slots: readProjectionStatus(pool, store, allProjections, kafka).then((status) => status.slots.filter((slot) => slot.status !== 'retired')) };
        current.slots.catch(() => (reading = reading === current ? undefined : reading));
        reading = current;
      }
      return reading.slots;
    };
    const labels = (slot: { projection: string; generation: number; state: string }) => ({ projection: slot.projection, generation: String(slot.generation), state: slot.state });
    metrics.addGauge({
      name: 'otog_projection_lag_events',
      help: 'Events of the log a projection slot has not folded yet (capped)',
      labelNames: ['projection', 'generation', 'state'],
      read: async () => (await slots()).map((slot) => ({ labels: labels(slot), value: slot.eventsBehind ?? 0 })),
    });
    metrics.addGauge({
      name: 'otog_projection_lag_seconds',
      help: 'Age of the oldest event a projection slot has not folded yet (0 for a slot reading Kafka: see otog_kafka_consumer_lag_messages)',
      labelNames: ['projection', 'generation', 'state'],
      read: async () => (await slots()).map((slot) => ({ labels: labels(slot), value: slot.secondsBehind ?? 0 })),
    });
    metrics.addGauge({
      name: 'otog_projection_faulted',
      help: '1 when a projection slot stopped on an event it cannot fold',
      labelNames: ['projection', 'generation', 'state'],
      read: async () => (await slots()).map((slot) => ({ labels: labels(slot), value: slot.status === 'faulted' ? 1 : 0 })),
    });
  }
  if (roles.includes('projector') && kafka) {
    metrics.addGauge({
      name: 'otog_kafka_consumer_lag_messages',
      help: 'Messages of its Kafka topics a projection slot reading Kafka has not applied yet, per partition',
      labelNames: ['projection', 'generation', 'topic', 'partition'],
      read: async () => {
        const reading = (await listSlots(pool)).filter((slot) => slot.source === 'kafka' && slot.state !== 'retired');
        const samples = [];
        for (const slot of reading) {
          for (const lag of (await kafkaSlotLag(slot, allProjections, kafka)) ?? []) {
            const labels = { projection: slot.projection, generation: String(slot.generation), topic: lag.topic, partition: String(lag.partition) };
            samples.push({ labels, value: lag.messages });
          }
        }
        return samples;
      },
    });
  }
  if (roles.includes('relay')) {
    const relayLag = async () => lagOf(pool, await relayPosition(pool));
    metrics.addGauge({
      name: 'otog_relay_lag_events',
      help: 'Events of the log not yet published to Kafka (capped)',
      read: async () => [{ value: (await relayLag()).events }],
    });
    metrics.addGauge({
      name: 'otog_relay_lag_seconds',
      help: 'Age of the oldest event not yet published to Kafka',
      read: async () => [{ value: (await relayLag()).seconds }],
    });
  }
}
