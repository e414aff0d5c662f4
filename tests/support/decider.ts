/**
 * Given/when/then for deciders: the state folded from `history`, then what one command decides in it.
 * Pure: no database, so every rule of a command gets a line of its own.
 */
import { expect } from 'vitest';
import { foldEvents, type Decider, type FoldableEvent } from '@otog/platform/eventstore/command';

export function given<TState, TCommand>(decider: Decider<TState, TCommand>, history: readonly FoldableEvent[] = []) {
  const state = foldEvents(decider, history);
  return {
    state,
    when(command: TCommand) {
      return {
        /** The events decided (type, scope and data; ids and times are the store's). */
        then(expected: readonly FoldableEvent[]) {
          const decided = decider.decide(command, state).map(({ type, scope, data }) => ({ type, scope, data }));
          expect(decided).toEqual(expected);
        },
        /** The command is refused with an error whose message matches. */
        thenRefused(message: string | RegExp) {
          expect(() => decider.decide(command, state)).toThrow(message);
        },
      };
    },
  };
}
