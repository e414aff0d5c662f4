/**
 * The one command pattern (a decider): load the stream, fold it into state with `evolve`, `decide` what
 * happens (events, or a refusal thrown as an error), append at the version that was read, and on a lost
 * race start over from the fresh stream. `decide` and `evolve` are pure, so rules are tested given/when/then
 * without a database.
 */
import type { EventDataOf, EventDefinition } from '@otog/schemas/events';
import { WrongExpectedVersionError } from './errors.ts';
import type { AppendOptions, AppendResult, EventStore, NewEvent } from './event-store.ts';

/** The minimum a fold needs: stored events and events about to be appended both fit. */
export interface FoldableEvent {
  readonly type: string;
  readonly data: unknown;
  readonly scope: string;
}

/** An event to append, its data checked against its definition when compiled (and validated again on append). */
export function eventOf<D extends EventDefinition>(
  definition: D,
  data: EventDataOf<D>,
  scope: string,
  extras: Pick<NewEvent, 'eventId' | 'occurredAt' | 'meta'> = {},
): NewEvent & { readonly type: D['type']; readonly data: EventDataOf<D> } {
  return { type: definition.type, data, scope, ...extras };
}

/** Narrows an event to a definition by its type: the store decoded it with that definition's schema. */
export function isEvent<D extends EventDefinition>(
  event: FoldableEvent,
  definition: D,
): event is FoldableEvent & { readonly type: D['type']; readonly data: EventDataOf<D> } {
  return event.type === definition.type;
}

export interface Decider<TState, TCommand> {
  readonly initialState: TState;
  /** The event types `evolve` looks at, when it ignores others: only those are loaded (a submission's test reports are not). */
  readonly types?: ReadonlySet<string>;
  evolve(state: TState, event: FoldableEvent): TState;
  /** The events the command causes in this state (none: nothing to do); throws to refuse it. */
  decide(command: TCommand, state: TState): readonly NewEvent[];
}

export function foldEvents<TState>(decider: Pick<Decider<TState, unknown>, 'initialState' | 'evolve'>, events: readonly FoldableEvent[]): TState {
  return events.reduce(decider.evolve, decider.initialState);
}

export interface CommandResult<TState> {
  readonly before: TState;
  readonly after: TState;
  /** null when the decision was to append nothing. */
  readonly appended: AppendResult | null;
}

/**
 * Runs `command` on stream `streamId`. A concurrent append to the stream (WrongExpectedVersionError) is
 * retried on the fresh stream up to `attempts` times, then rethrown for the caller to answer (a 409).
 * `newStream`: the stream was just named (an id from a sequence), so nothing is read: it must not exist yet.
 */
export async function runCommand<TState, TCommand>(
  store: EventStore,
  streamId: string,
  decider: Decider<TState, TCommand>,
  command: TCommand,
  options: { attempts?: number; newStream?: boolean; meta?: NewEvent['meta']; withinTransaction?: AppendOptions['withinTransaction'] } = {},
): Promise<CommandResult<TState>> {
  const attempts = options.newStream ? 1 : (options.attempts ?? 3);
  for (let attempt = 1; ; attempt += 1) {
    const { events: history, version } = options.newStream ? { events: [], version: 0 } : await load(store, streamId, decider.types);
    const before = foldEvents(decider, history);
    const events = decider.decide(command, before);
    if (events.length === 0) return { before, after: before, appended: null };
    const after = foldEvents({ initialState: before, evolve: decider.evolve }, events);
    try {
      const appended = await store.append(
        streamId,
        events.map((event) => ({ ...event, meta: { ...options.meta, ...event.meta } })),
        { expectedVersion: version === 0 ? 'none' : version, ...(options.withinTransaction ? { withinTransaction: options.withinTransaction } : {}) },
      );
      return { before, after, appended };
    } catch (error) {
      if (!(error instanceof WrongExpectedVersionError) || attempt >= attempts) throw error;
    }
  }
}

async function load(store: EventStore, streamId: string, types: ReadonlySet<string> | undefined) {
  if (types) return store.readStreamOf(streamId, types);
  const events = await store.readStream(streamId);
  return { events, version: events.length };
}
