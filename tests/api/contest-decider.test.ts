/** The contest decider, given/when/then (pure): the settings, problems, sign-ups, reveal and end of `contest-<id>`. */
import { describe, expect, it } from 'vitest';
import type { FoldableEvent } from '@otog/platform/eventstore/command';
import { HttpError } from '@otog/api/http/errors';
import { CONTEST_NOT_FOUND, contestDecider, type ContestCommand } from '@otog/api/modules/contests/contest-decider';
import { otogEventRegistry, type ContestSettings } from '@otog/schemas/events';
import { given } from '../support/decider.ts';

const contestId = 7;
const scope = 'contest:7';
const START = '2026-03-01T09:00:00.000Z';
const FREEZE = '2026-03-01T11:00:00.000Z';
const END = '2026-03-01T12:00:00.000Z';
const LATER_END = '2026-03-01T13:00:00.000Z';

const settings: ContestSettings = {
  name: 'TOI Camp Round 1',
  mode: 'rated',
  gradingMode: 'classic',
  scoreboardPolicy: 'DURING_CONTEST',
  timeStart: START,
  timeEnd: END,
  announce: null,
  freezeAt: null,
};
const frozen: ContestSettings = { ...settings, freezeAt: FREEZE };
const settingsWith = (changes: Partial<ContestSettings>, base: ContestSettings = settings): ContestSettings => ({ ...base, ...changes });

const created = (s: ContestSettings = settings) => ({ type: 'ContestCreated', scope, data: { contestId, settings: s } });
const edited = (s: ContestSettings) => ({ type: 'ContestEdited', scope, data: { contestId, settings: s } });
const deleted = { type: 'ContestDeleted', scope, data: { contestId } };
const problemsAdded = (...problemIds: number[]) => ({ type: 'ContestProblemsAdded', scope, data: { contestId, problemIds } });
const problemRemoved = (problemId: number) => ({ type: 'ContestProblemRemoved', scope, data: { contestId, problemId } });
const signedUp = (userId: number) => ({ type: 'ContestantSignedUp', scope, data: { contestId, userId } });
const revealedAt = (freezeAt: string) => ({ type: 'ContestScoreboardRevealed', scope, data: { contestId, freezeAt } });
const revealed = revealedAt(FREEZE);
const endedAt = (timeEnd: string) => ({ type: 'ContestEnded', scope, data: { contestId, timeEnd } });
const ended = endedAt(END);

const create = (s: ContestSettings): ContestCommand => ({ kind: 'create', contestId, settings: s });
const edit = (changes: Partial<ContestSettings>): ContestCommand => ({ kind: 'edit', contestId, changes });
const addProblems = (...problemIds: number[]): ContestCommand => ({ kind: 'addProblems', contestId, problemIds });
const removeProblem = (problemId: number): ContestCommand => ({ kind: 'removeProblem', contestId, problemId });
const signUp = (userId: number): ContestCommand => ({ kind: 'signUp', contestId, userId });
const reveal: ContestCommand = { kind: 'reveal', contestId };
const remove: ContestCommand = { kind: 'delete', contestId };
/** The scheduler read `timeEnd` as the contest's end and its clock says `now`. */
const end = (timeEnd: string, now: number): ContestCommand => ({ kind: 'end', contestId, timeEnd, now });
const ms = (time: string) => Date.parse(time);

/** The command is refused with an HttpError of this status and exactly this message. */
function refused(history: readonly FoldableEvent[], command: ContestCommand, statusCode: number, message: string) {
  const { state } = given(contestDecider, history);
  let error: unknown = null;
  try {
    contestDecider.decide(command, state);
  } catch (thrown) {
    error = thrown;
  }
  expect(error).toBeInstanceOf(HttpError);
  expect(error).toMatchObject({ statusCode, message });
}

/** What the command decides, each event also valid for the event store (type, scope kind and data). */
function decided(history: readonly FoldableEvent[], command: ContestCommand) {
  const events = contestDecider.decide(command, given(contestDecider, history).state);
  for (const event of events) expect(() => otogEventRegistry.validateForAppend(event.type, event.data, event.scope)).not.toThrow();
  return events.map(({ type, scope: eventScope, data }) => ({ type, scope: eventScope, data }));
}

describe('contest decider: create', () => {
  it('creates a contest with its settings, in the contest scope', () => {
    expect(decided([], create(settings))).toEqual([created(settings)]);
    expect(decided([], create(frozen))).toEqual([created(frozen)]);
  });

  it('refuses to create a contest that exists (409)', () => {
    refused([created()], create(settings), 409, 'Contest 7 exists');
    refused([created(), edited(frozen)], create(frozen), 409, 'Contest 7 exists');
  });

  it('writes every time as a UTC instant, so the same moment in another offset is the same setting', () => {
    const offsets = settingsWith({ timeStart: '2026-03-01T16:00:00+07:00', freezeAt: '2026-03-01T18:00:00+07:00' }, frozen);
    given(contestDecider, []).when(create(offsets)).then([created(frozen)]);
    given(contestDecider, [created(frozen)]).when(edit({ timeStart: '2026-03-01T16:00:00+07:00' })).then([]);
  });

  it('refuses a timeEnd that is not after timeStart (400), comparing instants whatever their offsets', () => {
    refused([], create(settingsWith({ timeEnd: START })), 400, 'timeEnd must be after timeStart');
    refused([], create(settingsWith({ timeEnd: '2026-03-01T08:59:59.999Z' })), 400, 'timeEnd must be after timeStart');
    // 16:00 in Bangkok is 09:00Z: the same instant as timeStart.
    refused([], create(settingsWith({ timeEnd: '2026-03-01T16:00:00+07:00' })), 400, 'timeEnd must be after timeStart');
    // 16:00:00.001 in Bangkok is one millisecond after the start.
    given(contestDecider).when(create(settingsWith({ timeEnd: '2026-03-01T16:00:00.001+07:00' }))).then([created(settingsWith({ timeEnd: '2026-03-01T09:00:00.001Z' }))]);
  });

  it('takes a freezeAt from timeStart to timeEnd inclusive, and refuses one outside (400)', () => {
    for (const freezeAt of [START, FREEZE, END, '2026-03-01T19:00:00+07:00']) {
      given(contestDecider).when(create(settingsWith({ freezeAt }))).then([created(settingsWith({ freezeAt: new Date(freezeAt).toISOString() }))]);
    }
    for (const freezeAt of ['2026-03-01T08:59:59.999Z', '2026-03-01T12:00:00.001Z', '2026-03-01T19:00:00.001+07:00', '2025-03-01T10:00:00.000Z']) {
      refused([], create(settingsWith({ freezeAt })), 400, 'freezeAt must be between timeStart and timeEnd');
    }
    // Both wrong: the times are reported first.
    refused([], create(settingsWith({ timeEnd: START, freezeAt: END })), 400, 'timeEnd must be after timeStart');
  });
});

describe('contest decider: edit', () => {
  it('merges a partial change into the current settings and emits them all', () => {
    given(contestDecider, [created()]).when(edit({ name: 'TOI Camp Round 1 (rerun)' })).then([edited(settingsWith({ name: 'TOI Camp Round 1 (rerun)' }))]);
    given(contestDecider, [created()])
      .when(edit({ gradingMode: 'acm', scoreboardPolicy: 'AFTER_CONTEST', announce: '{"text":"good luck"}' }))
      .then([edited(settingsWith({ gradingMode: 'acm', scoreboardPolicy: 'AFTER_CONTEST', announce: '{"text":"good luck"}' }))]);
    // A later edit merges into the settings of the earlier ones.
    given(contestDecider, [created(), edited(settingsWith({ mode: 'unrated' }))]).when(edit({ freezeAt: FREEZE })).then([edited(settingsWith({ mode: 'unrated', freezeAt: FREEZE }))]);
    // PUT: every setting at once.
    const replaced = settingsWith({ name: 'Round 2', gradingMode: 'bestSubtask', timeStart: '2026-04-01T09:00:00.000Z', timeEnd: '2026-04-01T12:00:00.000Z' });
    given(contestDecider, [created(frozen)]).when(edit(replaced)).then([edited(replaced)]);
    // Removing the freeze is a change too.
    given(contestDecider, [created(frozen)]).when(edit({ freezeAt: null })).then([edited(settings)]);
  });

  it('moves the whole contest when start and end change together', () => {
    const later = { timeStart: '2026-03-02T09:00:00.000Z', timeEnd: '2026-03-02T12:00:00.000Z' };
    given(contestDecider, [created()]).when(edit(later)).then([edited(settingsWith(later))]);
  });

  it('checks the merged settings, not just the change (400)', () => {
    // Each change alone is a valid instant; with the settings kept it is not.
    refused([created()], edit({ timeEnd: '2026-03-01T08:00:00.000Z' }), 400, 'timeEnd must be after timeStart');
    refused([created()], edit({ timeStart: END }), 400, 'timeEnd must be after timeStart');
    refused([created(frozen)], edit({ timeStart: '2026-03-01T11:30:00.000Z' }), 400, 'freezeAt must be between timeStart and timeEnd');
    refused([created(frozen)], edit({ timeEnd: '2026-03-01T10:30:00.000Z' }), 400, 'freezeAt must be between timeStart and timeEnd');
    refused([created()], edit({ freezeAt: '2026-03-01T12:00:00.001Z' }), 400, 'freezeAt must be between timeStart and timeEnd');
    // Moving the freeze out of the way makes the same move valid.
    given(contestDecider, [created(frozen)])
      .when(edit({ timeStart: '2026-03-01T11:30:00.000Z', freezeAt: null }))
      .then([edited(settingsWith({ timeStart: '2026-03-01T11:30:00.000Z' }))]);
  });

  it('emits nothing when the merged settings are unchanged', () => {
    given(contestDecider, [created()]).when(edit({})).then([]);
    given(contestDecider, [created()]).when(edit({ name: settings.name, freezeAt: null })).then([]);
    given(contestDecider, [created(frozen)]).when(edit(frozen)).then([]);
    given(contestDecider, [created(), edited(frozen)]).when(edit({ freezeAt: FREEZE })).then([]);
  });

  it('a changed freezeAt is a new freeze: it undoes an earlier reveal; other changes keep it', () => {
    const later = settingsWith({ freezeAt: '2026-03-01T11:30:00.000Z' }, frozen);
    expect(given(contestDecider, [created(frozen), revealed, edited(later)]).state?.revealed).toBe(false);
    expect(given(contestDecider, [created(frozen), revealed, edited(settingsWith({ freezeAt: null }, frozen))]).state?.revealed).toBe(false);
    // Removed and set again to the same moment: the freeze the reveal lifted, so it stays lifted.
    expect(given(contestDecider, [created(frozen), revealed, edited(settings), edited(frozen)]).state?.revealed).toBe(true);
    expect(given(contestDecider, [created(frozen), revealed, edited(settingsWith({ name: 'Renamed' }, frozen))]).state?.revealed).toBe(true);
    // So the new freeze can be revealed again, and the kept one cannot.
    given(contestDecider, [created(frozen), revealed, edited(later)]).when(reveal).then([revealedAt(later.freezeAt!)]);
    given(contestDecider, [created(frozen), revealed, edited(settingsWith({ name: 'Renamed' }, frozen))]).when(reveal).then([]);
  });

  // The decider compares freeze moments as instants, as the contests read model does.
  it('the same freeze moment written in another offset keeps the reveal, as the contests read model does', () => {
    const sameMoment = '2026-03-01T18:00:00+07:00'; // = FREEZE
    expect(given(contestDecider, [created(frozen), revealed, edited(settingsWith({ freezeAt: sameMoment }, frozen))]).state?.revealed).toBe(true);
  });
});

describe('contest decider: delete', () => {
  it('deletes an existing contest', () => {
    given(contestDecider, [created()]).when(remove).then([deleted]);
    given(contestDecider, [created(frozen), problemsAdded(1, 2), signedUp(4), revealed]).when(remove).then([deleted]);
    expect(given(contestDecider, [created(), problemsAdded(1), deleted]).state).toBeNull();
  });
});

describe('contest decider: a missing or deleted contest', () => {
  const commands: ContestCommand[] = [edit({ name: 'x' }), edit({}), remove, addProblems(1), removeProblem(1), signUp(4), reveal, end(END, ms(END))];
  for (const command of commands) {
    it(`refuses ${command.kind} with 404 ${CONTEST_NOT_FOUND}`, () => {
      refused([], command, 404, CONTEST_NOT_FOUND);
      refused([created(frozen), problemsAdded(1), signedUp(4), deleted], command, 404, CONTEST_NOT_FOUND);
    });
  }

  it('ignores the events of a contest after its deletion', () => {
    expect(given(contestDecider, [created(), deleted, edited(frozen), problemsAdded(1), signedUp(4), revealed, ended]).state).toBeNull();
  });
});

describe('contest decider: addProblems', () => {
  it('adds the problems once each, in id order', () => {
    given(contestDecider, [created()]).when(addProblems(12, 3, 12, 7, 3)).then([problemsAdded(3, 7, 12)]);
    given(contestDecider, [created()]).when(addProblems(5)).then([problemsAdded(5)]);
  });

  it('skips the problems the contest already has; nothing when it has them all', () => {
    const history = [created(), problemsAdded(3, 7)];
    given(contestDecider, history).when(addProblems(9, 7, 1, 3)).then([problemsAdded(1, 9)]);
    given(contestDecider, history).when(addProblems(7, 3, 7)).then([]);
    given(contestDecider, history).when(addProblems()).then([]);
    // A removed problem can be added again.
    given(contestDecider, [...history, problemRemoved(7)]).when(addProblems(7, 3)).then([problemsAdded(7)]);
  });

  it('folds the problem set from additions and removals', () => {
    const { state } = given(contestDecider, [created(), problemsAdded(1, 2, 3), problemRemoved(2), problemsAdded(4)]);
    expect([...(state?.problemIds ?? [])].sort((a, b) => a - b)).toEqual([1, 3, 4]);
  });
});

describe('contest decider: removeProblem', () => {
  it('removes a problem of the contest only', () => {
    given(contestDecider, [created(), problemsAdded(3, 7)]).when(removeProblem(7)).then([problemRemoved(7)]);
    given(contestDecider, [created(), problemsAdded(3, 7)]).when(removeProblem(8)).then([]);
    given(contestDecider, [created()]).when(removeProblem(3)).then([]);
    given(contestDecider, [created(), problemsAdded(3, 7), problemRemoved(7)]).when(removeProblem(7)).then([]);
  });
});

describe('contest decider: signUp', () => {
  it('signs a user up once', () => {
    given(contestDecider, [created()]).when(signUp(4)).then([signedUp(4)]);
    given(contestDecider, [created(), signedUp(4)]).when(signUp(4)).then([]);
    given(contestDecider, [created(), signedUp(4)]).when(signUp(5)).then([signedUp(5)]);
  });
});

describe('contest decider: reveal', () => {
  it('refuses a contest without a freeze (400)', () => {
    refused([created()], reveal, 400, 'The contest has no freeze to reveal');
    refused([created(frozen), edited(settings)], reveal, 400, 'The contest has no freeze to reveal');
    refused([created(frozen), revealed, edited(settings)], reveal, 400, 'The contest has no freeze to reveal');
  });

  it('reveals a frozen board once', () => {
    given(contestDecider, [created(frozen)]).when(reveal).then([revealed]);
    given(contestDecider, [created(), edited(frozen)]).when(reveal).then([revealed]);
    given(contestDecider, [created(frozen), revealed]).when(reveal).then([]);
  });
});

describe('contest decider: end', () => {
  it('confirms the end once it has passed, from its very millisecond on', () => {
    expect(decided([created()], end(END, ms(END)))).toEqual([ended]);
    given(contestDecider, [created()]).when(end(END, ms(END) + 3_600_000)).then([ended]);
    given(contestDecider, [created(frozen), problemsAdded(1), signedUp(4), revealed]).when(end(END, ms(END))).then([ended]);
  });

  it('refuses an end that has not passed yet (400)', () => {
    refused([created()], end(END, ms(END) - 1), 400, 'The contest has not ended yet');
    refused([created()], end(END, ms(START)), 400, 'The contest has not ended yet');
  });

  it('confirms an end once: nothing when that end is already confirmed', () => {
    given(contestDecider, [created()]).when(end(END, ms(END))).then([ended]);
    given(contestDecider, [created(), ended]).when(end(END, ms(END) + 1_000)).then([]);
    // An edit that leaves the end where it was keeps it confirmed.
    given(contestDecider, [created(), ended, edited(settingsWith({ name: 'Renamed', freezeAt: FREEZE }))]).when(end(END, ms(END))).then([]);
  });

  it('does nothing when the end moved since the caller read it, passed or not', () => {
    const moved = edited(settingsWith({ timeEnd: LATER_END }));
    given(contestDecider, [created(), moved]).when(end(END, ms(LATER_END))).then([]);
    // The end it read has passed but the current one has not: still nothing, not a refusal.
    given(contestDecider, [created(), moved]).when(end(END, ms(END))).then([]);
    given(contestDecider, [created()]).when(end(LATER_END, ms(LATER_END))).then([]);
  });

  it('reads the end as an instant, and names it in UTC', () => {
    given(contestDecider, [created()]).when(end('2026-03-01T19:00:00+07:00', ms(END))).then([ended]);
    given(contestDecider, [created(), ended]).when(end('2026-03-01T19:00:00.000+07:00', ms(END))).then([]);
  });

  it('an end moved after it was confirmed is not confirmed until the new end passes', () => {
    const history = [created(), ended, edited(settingsWith({ timeEnd: LATER_END }))];
    expect(given(contestDecider, history).state?.endedAt).toBe(END);
    refused(history, end(LATER_END, ms(LATER_END) - 1), 400, 'The contest has not ended yet');
    given(contestDecider, history).when(end(LATER_END, ms(LATER_END))).then([endedAt(LATER_END)]);
    given(contestDecider, [...history, endedAt(LATER_END)]).when(end(LATER_END, ms(LATER_END))).then([]);
    // Moved back to the end already confirmed: confirmed again, with nothing to append.
    given(contestDecider, [...history, edited(settings)]).when(end(END, ms(END))).then([]);
    // Moved earlier, to a moment that has passed: that end gets its own confirmation.
    const earlier = '2026-03-01T11:30:00.000Z';
    given(contestDecider, [created(), ended, edited(settingsWith({ timeEnd: earlier }))]).when(end(earlier, ms(END))).then([endedAt(earlier)]);
  });
});

describe('contest decider: state', () => {
  it('folds settings, problems, sign-ups, the reveal and the confirmed end', () => {
    const { state } = given(contestDecider, [created(frozen), problemsAdded(2, 1), signedUp(4), signedUp(5), edited(settingsWith({ name: 'Renamed' }, frozen)), revealed]);
    expect(state).toEqual({
      settings: settingsWith({ name: 'Renamed' }, frozen),
      problemIds: new Set([1, 2]),
      signedUp: new Set([4, 5]),
      revealedFreezeAt: FREEZE,
      revealed: true,
      endedAt: null,
    });
    expect(given(contestDecider, [created(), ended]).state).toMatchObject({ endedAt: END });
  });

  it('loads exactly the contest event types', () => {
    expect([...(contestDecider.types ?? [])].sort()).toEqual([
      'ContestCreated',
      'ContestDeleted',
      'ContestEdited',
      'ContestEnded',
      'ContestProblemRemoved',
      'ContestProblemsAdded',
      'ContestScoreboardRevealed',
      'ContestantSignedUp',
    ]);
  });
});
