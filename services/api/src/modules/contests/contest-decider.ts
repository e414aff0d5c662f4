/**
 * The command side of a contest as a decider over its stream `contest-<id>`: its settings, its problems,
 * who was signed up, whether a frozen board was revealed, and which end was confirmed passed. Pure, so
 * every rule is tested given/when/then. That the problems and users named by a command exist is checked
 * by the caller before deciding.
 */
import { eventOf, foldEvents, isEvent, type Decider, type FoldableEvent } from '@otog/platform/eventstore/command';
import {
  ContestCreated,
  ContestDeleted,
  ContestEdited,
  ContestEnded,
  ContestProblemRemoved,
  ContestProblemsAdded,
  ContestScoreboardRevealed,
  ContestantSignedUp,
  contestEvents,
  type ContestSettings,
} from '@otog/schemas/events';
import { FREEZE_AT_MESSAGE, TIME_END_MESSAGE } from '@otog/schemas/api/contest';
import { badRequest, conflict, notFound } from '../../http/errors.ts';

export const CONTEST_NOT_FOUND = 'Contest not found';

export type ContestState = {
  readonly settings: ContestSettings;
  readonly problemIds: ReadonlySet<number>;
  readonly signedUp: ReadonlySet<number>;
  /** The freeze moment an admin lifted, if any. */
  readonly revealedFreezeAt: string | null;
  /** The current freeze is lifted. */
  readonly revealed: boolean;
  /** The timeEnd a ContestEnded confirmed passed; an edit keeps it, so a moved end is not yet confirmed. */
  readonly endedAt: string | null;
} | null;

export type ContestCommand =
  | { readonly kind: 'create'; readonly contestId: number; readonly settings: ContestSettings }
  /** PUT passes every setting, PATCH some; the decider merges and checks the result. */
  | { readonly kind: 'edit'; readonly contestId: number; readonly changes: Partial<ContestSettings> }
  | { readonly kind: 'delete'; readonly contestId: number }
  | { readonly kind: 'addProblems'; readonly contestId: number; readonly problemIds: readonly number[] }
  | { readonly kind: 'removeProblem'; readonly contestId: number; readonly problemId: number }
  | { readonly kind: 'signUp'; readonly contestId: number; readonly userId: number }
  | { readonly kind: 'reveal'; readonly contestId: number }
  /**
   * The end scheduler confirms that `timeEnd`, the end it read, has passed at `now` (its clock, passed in
   * so the decider stays pure).
   */
  | { readonly kind: 'end'; readonly contestId: number; readonly timeEnd: string; readonly now: number };

export const contestStream = (contestId: number): string => `contest-${contestId}`;
export const contestScope = (contestId: number): string => `contest:${contestId}`;

/** Why these settings cannot be a contest's, or null. Times are compared as instants, whatever their offsets. */
export function settingsProblem(settings: ContestSettings): string | null {
  const start = Date.parse(settings.timeStart);
  const end = Date.parse(settings.timeEnd);
  if (!(end > start)) return TIME_END_MESSAGE;
  if (settings.freezeAt !== null) {
    const freeze = Date.parse(settings.freezeAt);
    if (freeze < start || freeze > end) return FREEZE_AT_MESSAGE;
  }
  return null;
}

/** One instant, one spelling (UTC ISO): settings compare, and events replay, the same whatever offset an admin typed. */
const canonical = (time: string): string => new Date(time).toISOString();

function checked(settings: ContestSettings): ContestSettings {
  const problem = settingsProblem(settings);
  if (problem) throw badRequest(problem);
  return {
    ...settings,
    timeStart: canonical(settings.timeStart),
    timeEnd: canonical(settings.timeEnd),
    freezeAt: settings.freezeAt === null ? null : canonical(settings.freezeAt),
  };
}

/** A reveal lifts the freeze at the moment it names; a freeze moved elsewhere is a new freeze. */
const isLifted = (revealedFreezeAt: string | null, settings: ContestSettings): boolean =>
  revealedFreezeAt !== null && settings.freezeAt !== null && Date.parse(revealedFreezeAt) === Date.parse(settings.freezeAt);

const sameSettings = (a: ContestSettings, b: ContestSettings): boolean =>
  (Object.keys(a) as (keyof ContestSettings)[]).every((key) => a[key] === b[key]);

export const contestDecider: Decider<ContestState, ContestCommand> = {
  initialState: null,
  types: new Set(contestEvents.map((definition) => definition.type)),
  evolve(state, event: FoldableEvent) {
    if (isEvent(event, ContestCreated)) {
      const settings = event.data.settings;
      return { settings, problemIds: new Set(), signedUp: new Set(), revealedFreezeAt: null, revealed: false, endedAt: null };
    }
    if (!state) return null;
    if (isEvent(event, ContestEdited)) return { ...state, settings: event.data.settings, revealed: isLifted(state.revealedFreezeAt, event.data.settings) };
    if (isEvent(event, ContestDeleted)) return null;
    if (isEvent(event, ContestProblemsAdded)) return { ...state, problemIds: new Set([...state.problemIds, ...event.data.problemIds]) };
    if (isEvent(event, ContestProblemRemoved)) {
      const problemIds = new Set(state.problemIds);
      problemIds.delete(event.data.problemId);
      return { ...state, problemIds };
    }
    if (isEvent(event, ContestantSignedUp)) return { ...state, signedUp: new Set([...state.signedUp, event.data.userId]) };
    if (isEvent(event, ContestScoreboardRevealed)) {
      return { ...state, revealedFreezeAt: event.data.freezeAt, revealed: isLifted(event.data.freezeAt, state.settings) };
    }
    if (isEvent(event, ContestEnded)) return { ...state, endedAt: event.data.timeEnd };
    return state;
  },
  decide(command, state) {
    const { contestId } = command;
    const scope = contestScope(contestId);
    if (command.kind === 'create') {
      if (state) throw conflict(`Contest ${contestId} exists`);
      return [eventOf(ContestCreated, { contestId, settings: checked(command.settings) }, scope)];
    }
    if (!state) throw notFound(CONTEST_NOT_FOUND);
    switch (command.kind) {
      case 'edit': {
        const settings = checked({ ...state.settings, ...command.changes });
        return sameSettings(settings, state.settings) ? [] : [eventOf(ContestEdited, { contestId, settings }, scope)];
      }
      case 'delete':
        return [eventOf(ContestDeleted, { contestId }, scope)];
      case 'addProblems': {
        const problemIds = [...new Set(command.problemIds)].filter((problemId) => !state.problemIds.has(problemId)).sort((a, b) => a - b);
        return problemIds.length === 0 ? [] : [eventOf(ContestProblemsAdded, { contestId, problemIds }, scope)];
      }
      case 'removeProblem':
        return state.problemIds.has(command.problemId) ? [eventOf(ContestProblemRemoved, { contestId, problemId: command.problemId }, scope)] : [];
      case 'signUp':
        return state.signedUp.has(command.userId) ? [] : [eventOf(ContestantSignedUp, { contestId, userId: command.userId }, scope)];
      case 'reveal':
        if (state.settings.freezeAt === null) throw badRequest('The contest has no freeze to reveal');
        return state.revealed ? [] : [eventOf(ContestScoreboardRevealed, { contestId, freezeAt: state.settings.freezeAt }, scope)];
      case 'end': {
        const timeEnd = state.settings.timeEnd;
        // The end moved since the caller read it: the caller comes back for the new end.
        if (canonical(command.timeEnd) !== timeEnd) return [];
        if (Date.parse(timeEnd) > command.now) throw badRequest('The contest has not ended yet');
        if (state.endedAt === timeEnd) return [];
        return [eventOf(ContestEnded, { contestId, timeEnd }, scope)];
      }
    }
  },
};

export const foldContest = (events: readonly FoldableEvent[]): ContestState => foldEvents(contestDecider, events);
