import { createEventRegistry, type EventDefinition } from './registry.ts';

/**
 * The product's event catalogue. Each capability adds its events here (judge, submissions, contests,
 * chat); the event store validates appends and reads against this registry.
 * Scopes (Kafka keys, ordering domains): `user:<id>`, `contest:<id>`, `chat:<room>`.
 */
export const otogEvents: readonly EventDefinition[] = [];
export const otogEventRegistry = createEventRegistry(otogEvents);
