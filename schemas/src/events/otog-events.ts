import { judgingEvents } from './judging-events.ts';
import { problemEvents } from './problem-events.ts';
import { userEvents } from './user-events.ts';
import { announcementEvents } from './announcement-events.ts';
import { createEventRegistry, type EventDefinition } from './registry.ts';

/** The product's event catalogue; the event store validates appends and reads against this registry. Scopes: scopes.ts. */
export const otogEvents: readonly EventDefinition[] = [...userEvents, ...problemEvents, ...judgingEvents, ...announcementEvents];
export const otogEventRegistry = createEventRegistry(otogEvents);
