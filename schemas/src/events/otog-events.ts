import { judgingEvents } from './judging-events.ts';
import { problemEvents } from './problem-events.ts';
import { userEvents } from './user-events.ts';
import { announcementEvents } from './announcement-events.ts';
import { chatEvents } from './chat-events.ts';
import { contestEvents } from './contest-events.ts';
import { createEventRegistry, type EventDataOf } from './registry.ts';

/** The product's event catalogue; the event store validates appends and reads against this registry. Scopes: scopes.ts. */
export const otogEvents = [...userEvents, ...problemEvents, ...judgingEvents, ...announcementEvents, ...contestEvents, ...chatEvents] as const;
export const otogEventRegistry = createEventRegistry(otogEvents);

/** Each product event type's data, by type name: what typed projections and appends are checked against. */
export type OtogEventMap = { [D in (typeof otogEvents)[number] as D['type']]: EventDataOf<D> };
