import { Partitioners, type KafkaMessage, type Message, type PartitionMetadata } from 'kafkajs';
import { z } from 'zod';
import { SCOPE_KIND_NAMES, SCOPE_KINDS, scopeKindOf, type EventRegistry } from '@otog/schemas/events';
import type { StoredEvent } from '../eventstore/event-store.ts';

/**
 * The wire format between the outbox relay (producer) and the Kafka transport (consumer), in one place
 * so the two cannot drift: topic routing, message keys, headers and the JSON value.
 */

/** Which topic carries a scope. Must be a function of the scope alone: the transport uses it to find an event again. */
export type TopicRouter = (scope: string) => string;

/** One topic per ordering domain (scope kind, declared in schemas/events/scopes.ts). Partitions and retention: infra/prod/kafka.md. */
export const OTOG_TOPICS: readonly string[] = SCOPE_KIND_NAMES.map((kind) => SCOPE_KINDS[kind].topic);

export class UnroutableScopeError extends Error {
  constructor(scope: string) {
    super(`no Kafka topic for scope "${scope}": add its kind to the relay's topic routing`);
    this.name = 'UnroutableScopeError';
  }
}

/** The topic of the scope's kind (`user:12` -> otog.submissions.v1, ...). */
export const defaultTopicForScope: TopicRouter = (scope) => {
  const kind = scopeKindOf(scope);
  // An unknown kind faults the relay rather than publishing where nobody reads (never skip silently). The
  // event store refuses such appends, so only a log written by older code can hold one.
  if (kind === null) throw new UnroutableScopeError(scope);
  return SCOPE_KINDS[kind].topic;
};

export const HEADERS = {
  eventId: 'otog-event-id',
  type: 'otog-type',
  schemaVersion: 'otog-schema-version',
  streamId: 'otog-stream-id',
  txid: 'otog-txid',
  gpos: 'otog-gpos',
} as const;

/** The JSON value: the stored envelope, `data` exactly as stored at `schemaVersion` (not upcast). */
const envelopeSchema = z.object({
  eventId: z.string().uuid(),
  streamId: z.string().min(1),
  streamPosition: z.number().int().positive(),
  type: z.string().min(1),
  schemaVersion: z.number().int().positive(),
  scope: z.string().min(1),
  occurredAt: z.string(),
  recordedAt: z.string(),
  txid: z.string().regex(/^\d{1,20}$/),
  gpos: z.string().regex(/^\d{1,20}$/),
  data: z.unknown(),
  meta: z.record(z.string(), z.unknown()),
});
export type EventEnvelope = z.output<typeof envelopeSchema>;

/**
 * One Kafka message per event, keyed by scope (so one scope stays in one partition, in order).
 * `event` must be read as stored (data at `event.schemaVersion`, not upcast); a consumer upcasts it with
 * its own registry, exactly as a reader of the log does.
 */
export function encodeEventMessage(event: StoredEvent): Message {
  const envelope: EventEnvelope = {
    eventId: event.eventId,
    streamId: event.streamId,
    streamPosition: event.streamPosition,
    type: event.type,
    schemaVersion: event.schemaVersion,
    scope: event.scope,
    occurredAt: event.occurredAt,
    recordedAt: event.recordedAt,
    txid: event.txid.toString(),
    gpos: event.gpos.toString(),
    data: event.data,
    meta: event.meta,
  };
  return {
    key: event.scope,
    value: JSON.stringify(envelope),
    headers: {
      [HEADERS.eventId]: event.eventId,
      [HEADERS.type]: event.type,
      [HEADERS.schemaVersion]: String(event.schemaVersion),
      [HEADERS.streamId]: event.streamId,
      [HEADERS.txid]: event.txid.toString(),
      [HEADERS.gpos]: event.gpos.toString(),
    },
  };
}

/** A message that cannot become a StoredEvent (malformed, unknown type, fails its schema). Deterministic: never retried. */
export class EventMessageError extends Error {
  readonly eventId: string | null;
  readonly offset: string;
  constructor(message: string, eventId: string | null, offset: string) {
    super(message);
    this.name = 'EventMessageError';
    this.eventId = eventId;
    this.offset = offset;
  }
}

function header(message: KafkaMessage, name: string): string | null {
  const value = message.headers?.[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined ? null : first.toString();
}

/** The event id a message claims in its header: names the culprit when the value itself is unreadable. */
export function messageEventId(message: KafkaMessage): string | null {
  return header(message, HEADERS.eventId);
}

/** Parses, upcasts and validates a message through the registry (same checks as reading the log). */
export function decodeEventMessage(message: KafkaMessage, registry: EventRegistry): StoredEvent {
  const eventId = messageEventId(message);
  let json: unknown;
  try {
    json = JSON.parse(message.value?.toString() ?? 'null');
  } catch (error) {
    throw new EventMessageError(`message at offset ${message.offset} is not JSON: ${String(error)}`, eventId, message.offset);
  }
  const parsed = envelopeSchema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(value)'}: ${issue.message}`).join('; ');
    throw new EventMessageError(`message at offset ${message.offset} is not an event envelope: ${issues}`, eventId, message.offset);
  }
  const envelope = parsed.data;
  let data: unknown;
  try {
    data = registry.decode(envelope.type, envelope.schemaVersion, envelope.data);
  } catch (error) {
    throw new EventMessageError(error instanceof Error ? error.message : String(error), envelope.eventId, message.offset);
  }
  return {
    txid: BigInt(envelope.txid),
    gpos: BigInt(envelope.gpos),
    eventId: envelope.eventId,
    streamId: envelope.streamId,
    streamPosition: envelope.streamPosition,
    type: envelope.type,
    schemaVersion: envelope.schemaVersion,
    scope: envelope.scope,
    occurredAt: envelope.occurredAt,
    recordedAt: envelope.recordedAt,
    data,
    meta: envelope.meta,
  };
}

/**
 * The partition the relay's producer puts `key` in: the very partitioner the producer is configured with
 * (kafkajs DefaultPartitioner: Java-compatible murmur2 of the key modulo the partition count), so the
 * two cannot disagree. Depends only on the key and the partition count.
 */
export const relayPartitioner = Partitioners.DefaultPartitioner;
const keyPartitioner = relayPartitioner();

export function partitionForKey(topic: string, key: string, partitions: readonly PartitionMetadata[]): number {
  if (partitions.length === 0) throw new Error(`topic ${topic} has no partitions in the metadata`);
  return keyPartitioner({ topic, partitionMetadata: [...partitions], message: { key, value: null } });
}
