/**
 * The contest score of one problem from a contestant's judged submissions to it, per grading mode:
 * classic (latest counts), bestSubmission, bestSubtask (best per subtask, scaled to problem.score,
 * rounded half to even) and acm (ICPC: solved or not, minutes plus 20 per earlier reject), with the
 * journal normalised (sorted by id, duplicates keep their last delivery).
 */
import { describe, expect, it } from 'vitest';
import { GRADING_MODES, type GradingMode } from '@otog/schemas/common/contest';
import { scaleScore } from '@otog/schemas/common/rounding';
import {
  normaliseJournal,
  scoreProblem,
  type JudgedContestSubmission,
  type ProblemOutcome,
  type ProblemScoringContext,
} from '@otog/projections/contest-scores/rules/scoring';
import { mulberry32 } from '../support/mulberry32.ts';

/** Contest start. */
const T0 = Date.UTC(2024, 0, 1, 9, 0, 0);
/** T0 + minutes:seconds (+ ms). */
const at = (minutes: number, seconds = 0, ms = 0) => T0 + minutes * 60_000 + seconds * 1000 + ms;
const context: ProblemScoringContext = { problemScore: 100, contestStart: T0 };

type Subtasks = JudgedContestSubmission['subtasks'];
/** Subtasks as [raw, full] pairs. */
const subtasks = (...pairs: [number, number][]): Subtasks => pairs.map(([score, fullScore]) => ({ score, fullScore }));

function submission(
  submissionId: number,
  submittedAt: number,
  score: number,
  options: { status?: 'accept' | 'reject'; subtasks?: Subtasks } = {},
): JudgedContestSubmission {
  return { submissionId, submittedAt, status: options.status ?? (score === 100 ? 'accept' : 'reject'), score, subtasks: options.subtasks ?? [] };
}
const accept = (submissionId: number, submittedAt: number) => submission(submissionId, submittedAt, 100, { status: 'accept' });
const reject = (submissionId: number, submittedAt: number) => submission(submissionId, submittedAt, 0, { status: 'reject' });

/** A submission scored from its subtasks, as the judge would (problem score 100). */
function bySubtasks(submissionId: number, submittedAt: number, ...pairs: [number, number][]): JudgedContestSubmission {
  const raw = pairs.reduce((sum, [score]) => sum + score, 0);
  const full = pairs.reduce((sum, [, fullScore]) => sum + fullScore, 0);
  const score = full > 0 ? scaleScore(raw, full, 100) : 0;
  return submission(submissionId, submittedAt, score, { status: raw === full ? 'accept' : 'reject', subtasks: subtasks(...pairs) });
}

/** [submissionId, score] pairs. */
const history = (...entries: [number, number][]) => entries.map(([submissionId, score]) => ({ submissionId, score }));
const decided = (submissionId: number, submittedAt: number) => ({ submissionId, submittedAt });

const empty: ProblemOutcome = { score: 0, deciding: null, penalty: 0, solvedAt: null, history: [] };

interface Case {
  readonly name: string;
  readonly journal: readonly JudgedContestSubmission[];
  readonly context?: ProblemScoringContext;
  readonly expected: ProblemOutcome;
}

function runCases(mode: GradingMode, cases: readonly Case[]) {
  it.each(cases)('$name', ({ journal, context: caseContext, expected }) => {
    expect(scoreProblem(mode, journal, caseContext ?? context)).toEqual(expected);
  });
}

describe('journal normalisation', () => {
  it('sorts by submissionId and keeps the last delivery of a duplicated id', () => {
    const first = submission(2, at(5), 40);
    const rejudged = submission(2, at(5), 70);
    expect(normaliseJournal([submission(3, at(9), 10), first, submission(1, at(1), 20), rejudged])).toEqual([
      submission(1, at(1), 20),
      rejudged,
      submission(3, at(9), 10),
    ]);
  });
  it.each(GRADING_MODES)('%s: an empty journal scores nothing', (mode) => {
    expect(scoreProblem(mode, [], context)).toEqual(empty);
  });
});

describe('classic: the latest judged submission counts', () => {
  runCases('classic', [
    { name: 'empty journal', journal: [], expected: empty },
    {
      name: 'a single submission decides; the penalty is whole seconds since the start',
      journal: [submission(1, at(10, 0, 999), 70)],
      expected: { score: 70, deciding: decided(1, at(10, 0, 999)), penalty: 600, solvedAt: null, history: history([1, 70]) },
    },
    {
      name: 'an improving sequence ends on the best',
      journal: [submission(1, at(1), 20), submission(2, at(2), 50), submission(3, at(3), 100)],
      expected: { score: 100, deciding: decided(3, at(3)), penalty: 180, solvedAt: null, history: history([1, 20], [2, 50], [3, 100]) },
    },
    {
      name: 'a lower later score replaces a higher one',
      journal: [submission(1, at(5), 80), submission(2, at(7), 30)],
      expected: { score: 30, deciding: decided(2, at(7)), penalty: 420, solvedAt: null, history: history([1, 80], [2, 30]) },
    },
    {
      name: 'a later 0 still decides',
      journal: [submission(1, at(5), 100), submission(2, at(8, 30), 0)],
      expected: { score: 0, deciding: decided(2, at(8, 30)), penalty: 510, solvedAt: null, history: history([1, 100], [2, 0]) },
    },
    {
      name: 'out of order and duplicated: sorted by id, the last delivery of an id wins',
      journal: [submission(3, at(9), 60), submission(1, at(1), 90), submission(2, at(4), 10), submission(3, at(9), 45)],
      expected: { score: 45, deciding: decided(3, at(9)), penalty: 540, solvedAt: null, history: history([1, 90], [2, 10], [3, 45]) },
    },
    {
      name: 'a submission before the start has penalty 0',
      journal: [submission(1, at(-3), 40)],
      expected: { score: 40, deciding: decided(1, at(-3)), penalty: 0, solvedAt: null, history: history([1, 40]) },
    },
  ]);
});

describe('bestSubmission: the best single submission counts', () => {
  runCases('bestSubmission', [
    { name: 'empty journal', journal: [], expected: empty },
    {
      name: 'a single submission',
      journal: [submission(4, at(12, 34, 500), 55)],
      expected: { score: 55, deciding: decided(4, at(12, 34, 500)), penalty: 754, solvedAt: null, history: history([4, 55]) },
    },
    {
      name: 'an improving sequence: the last improvement decides',
      journal: [submission(1, at(1), 20), submission(2, at(2), 50), submission(3, at(3), 100)],
      expected: { score: 100, deciding: decided(3, at(3)), penalty: 180, solvedAt: null, history: history([1, 20], [2, 50], [3, 100]) },
    },
    {
      name: 'a worsening sequence keeps the first',
      journal: [submission(1, at(1), 90), submission(2, at(2), 40), submission(3, at(3), 0)],
      expected: { score: 90, deciding: decided(1, at(1)), penalty: 60, solvedAt: null, history: history([1, 90], [2, 90], [3, 90]) },
    },
    {
      name: 'an equal later score does not take over',
      journal: [submission(1, at(1), 60), submission(2, at(2), 60)],
      expected: { score: 60, deciding: decided(1, at(1)), penalty: 60, solvedAt: null, history: history([1, 60], [2, 60]) },
    },
    {
      name: 'all zero: no deciding submission',
      journal: [submission(1, at(1), 0), submission(2, at(2), 0)],
      expected: { score: 0, deciding: null, penalty: 0, solvedAt: null, history: history([1, 0], [2, 0]) },
    },
    {
      name: 'out of order and duplicated: a rejudge lowering the best is honoured',
      journal: [submission(2, at(6), 50), submission(1, at(3), 90), submission(1, at(3), 30)],
      expected: { score: 50, deciding: decided(2, at(6)), penalty: 360, solvedAt: null, history: history([1, 30], [2, 50]) },
    },
    {
      name: 'a submission before the start has penalty 0',
      journal: [submission(1, at(0, -1), 70), submission(2, at(0, 30), 20)],
      expected: { score: 70, deciding: decided(1, at(0, -1)), penalty: 0, solvedAt: null, history: history([1, 70], [2, 70]) },
    },
  ]);
});

describe('bestSubtask: the best of each subtask, scaled to problem.score', () => {
  runCases('bestSubtask', [
    { name: 'empty journal', journal: [], expected: empty },
    {
      name: 'a single submission: 15 of 30 raw points → 50',
      journal: [bySubtasks(1, at(2), [10, 10], [5, 20])],
      expected: { score: 50, deciding: decided(1, at(2)), penalty: 120, solvedAt: null, history: history([1, 50]) },
    },
    {
      name: 'subtasks combine across submissions (10/60 → 17, 30/60 → 50, 45/60 → 75)',
      journal: [
        bySubtasks(1, at(1), [10, 10], [0, 20], [0, 30]),
        bySubtasks(2, at(2), [0, 10], [20, 20], [0, 30]),
        bySubtasks(3, at(3), [0, 10], [0, 20], [15, 30]),
      ],
      expected: { score: 75, deciding: decided(3, at(3)), penalty: 180, solvedAt: null, history: history([1, 17], [2, 50], [3, 75]) },
    },
    {
      name: 'half to even: 1/8 → 12.5 → 12, then best 1+1+0+1 of 8 → 37.5 → 38',
      journal: [bySubtasks(1, at(1), [1, 2], [0, 2], [0, 2], [0, 2]), bySubtasks(2, at(2), [0, 2], [1, 2], [0, 2], [1, 2])],
      expected: { score: 38, deciding: decided(2, at(2)), penalty: 120, solvedAt: null, history: history([1, 12], [2, 38]) },
    },
    {
      name: 'checker fractions with problem score 50: 0.5 + 2 of 4 → 31.25 → 31, then best 1.48 + 2 of 4 → 43.5 → 44',
      context: { problemScore: 50, contestStart: T0 },
      journal: [
        submission(1, at(1), 31, { subtasks: subtasks([0.5, 2], [2, 2]) }),
        submission(2, at(2), 21, { subtasks: subtasks([1.48, 2], [0.2, 2]) }),
      ],
      expected: { score: 44, deciding: decided(2, at(2)), penalty: 120, solvedAt: null, history: history([1, 31], [2, 44]) },
    },
    {
      name: 'an exact half rounds to the even neighbour: 5 of 8 → 62.5 → 62',
      journal: [bySubtasks(1, at(1), [2, 2], [2, 2], [1, 2], [0, 2])],
      expected: { score: 62, deciding: decided(1, at(1)), penalty: 60, solvedAt: null, history: history([1, 62]) },
    },
    {
      name: 'the scaling uses problem.score: 1 of 2 with problem score 25 → 12.5 → 12',
      context: { problemScore: 25, contestStart: T0 },
      journal: [submission(1, at(1), 12, { subtasks: subtasks([1, 1], [0, 1]) })],
      expected: { score: 12, deciding: decided(1, at(1)), penalty: 60, solvedAt: null, history: history([1, 12]) },
    },
    {
      name: 'a submission improving nothing keeps the earlier one deciding',
      journal: [bySubtasks(1, at(1), [10, 10], [0, 10]), bySubtasks(2, at(2), [10, 10], [0, 10]), bySubtasks(3, at(3), [3, 10], [0, 10])],
      expected: { score: 50, deciding: decided(1, at(1)), penalty: 60, solvedAt: null, history: history([1, 50], [2, 50], [3, 50]) },
    },
    {
      name: 'a grown full score counts at its largest: 5+10 of 10+10 → 75, then of 20+10 → 50',
      journal: [bySubtasks(1, at(1), [5, 10], [10, 10]), bySubtasks(2, at(2), [0, 20], [0, 10])],
      expected: { score: 50, deciding: decided(1, at(1)), penalty: 60, solvedAt: null, history: history([1, 75], [2, 50]) },
    },
    {
      name: 'a grown full score, fully solved by the later submission → 100',
      journal: [bySubtasks(1, at(1), [5, 10], [10, 10]), bySubtasks(2, at(2), [20, 20], [0, 10])],
      expected: { score: 100, deciding: decided(2, at(2)), penalty: 120, solvedAt: null, history: history([1, 75], [2, 100]) },
    },
    {
      name: 'all zero: no deciding submission',
      journal: [bySubtasks(1, at(1), [0, 10], [0, 10]), bySubtasks(2, at(2), [0, 10], [0, 10])],
      expected: { score: 0, deciding: null, penalty: 0, solvedAt: null, history: history([1, 0], [2, 0]) },
    },
    {
      name: 'no subtasks at all (no full points) scores 0',
      journal: [submission(1, at(1), 0)],
      expected: { score: 0, deciding: null, penalty: 0, solvedAt: null, history: history([1, 0]) },
    },
    {
      name: 'out of order and duplicated: sorted by id, a rejudge replaces its earlier delivery',
      journal: [
        bySubtasks(2, at(4), [0, 10], [10, 10]),
        bySubtasks(1, at(2), [10, 10], [0, 10]),
        bySubtasks(2, at(4), [0, 10], [5, 10]),
        bySubtasks(1, at(2), [10, 10], [0, 10]),
      ],
      expected: { score: 75, deciding: decided(2, at(4)), penalty: 240, solvedAt: null, history: history([1, 50], [2, 75]) },
    },
    {
      name: 'a submission before the start has penalty 0',
      journal: [bySubtasks(1, at(-10), [10, 10], [0, 10])],
      expected: { score: 50, deciding: decided(1, at(-10)), penalty: 0, solvedAt: null, history: history([1, 50]) },
    },
  ]);
});

describe('acm: solved or not, penalty = minutes to the first accept + 20 per earlier reject', () => {
  // The worked example (problem scores 100). A compile error at 20:10 on problem A never reaches the
  // journal, so it costs nothing.
  runCases('acm', [
    { name: 'empty journal', journal: [], expected: empty },
    {
      name: 'worked example A: reject 12:30, accept 41:59 → 41 + 20 = 61 min',
      journal: [reject(1, at(12, 30)), accept(2, at(41, 59))],
      expected: { score: 100, deciding: decided(2, at(41, 59)), penalty: 3660, solvedAt: at(41, 59), history: history([1, 0], [2, 100]) },
    },
    {
      name: 'worked example B: reject 50:00, accept 95:00 → 95 + 20 = 115 min',
      journal: [reject(3, at(50)), accept(4, at(95))],
      expected: { score: 100, deciding: decided(4, at(95)), penalty: 6900, solvedAt: at(95), history: history([3, 0], [4, 100]) },
    },
    {
      name: 'worked example C: reject 200:00, never solved → 0, no penalty',
      journal: [reject(5, at(200))],
      expected: { score: 0, deciding: null, penalty: 0, solvedAt: null, history: history([5, 0]) },
    },
    {
      name: 'a single accept in the first minute: solved with penalty 0',
      journal: [accept(1, at(0, 59, 999))],
      expected: { score: 100, deciding: decided(1, at(0, 59, 999)), penalty: 0, solvedAt: at(0, 59, 999), history: history([1, 100]) },
    },
    {
      name: 'rejects and accepts after the first accept do not count',
      journal: [reject(1, at(1)), accept(2, at(10)), reject(3, at(20)), accept(4, at(30))],
      expected: { score: 100, deciding: decided(2, at(10)), penalty: 1800, solvedAt: at(10), history: history([1, 0], [2, 100], [3, 100], [4, 100]) },
    },
    {
      name: 'a partially scored reject is still a reject',
      journal: [submission(1, at(3), 90, { status: 'reject' }), accept(2, at(4))],
      expected: { score: 100, deciding: decided(2, at(4)), penalty: 1440, solvedAt: at(4), history: history([1, 0], [2, 100]) },
    },
    {
      name: 'many rejects, unsolved: score 0 and no penalty',
      journal: [reject(1, at(1)), reject(2, at(2)), reject(3, at(3))],
      expected: { score: 0, deciding: null, penalty: 0, solvedAt: null, history: history([1, 0], [2, 0], [3, 0]) },
    },
    {
      name: 'minutes before the start count as 0 (rejects still cost 20)',
      journal: [reject(1, at(-7)), accept(2, at(-5))],
      expected: { score: 100, deciding: decided(2, at(-5)), penalty: 1200, solvedAt: at(-5), history: history([1, 0], [2, 100]) },
    },
    {
      name: 'the score is problem.score',
      context: { problemScore: 250, contestStart: T0 },
      journal: [accept(1, at(30))],
      expected: { score: 250, deciding: decided(1, at(30)), penalty: 1800, solvedAt: at(30), history: history([1, 250]) },
    },
    {
      name: 'out of order and duplicated: a rejudge to accept solves at that submission',
      journal: [accept(3, at(30)), reject(1, at(10)), reject(2, at(20)), accept(2, at(20))],
      expected: { score: 100, deciding: decided(2, at(20)), penalty: 2400, solvedAt: at(20), history: history([1, 0], [2, 100], [3, 100]) },
    },
    {
      name: 'a rejudge to reject un-solves the first accept',
      journal: [accept(1, at(10)), accept(2, at(20)), reject(1, at(10))],
      expected: { score: 100, deciding: decided(2, at(20)), penalty: 2400, solvedAt: at(20), history: history([1, 0], [2, 100]) },
    },
  ]);
});

describe('scoreProblem dispatches on the grading mode', () => {
  // Subtasks worth 60 + 40: the first gets subtask 1, the second subtask 2.
  const journal = [bySubtasks(1, at(10), [60, 60], [0, 40]), bySubtasks(2, at(20), [0, 60], [40, 40])];
  it.each<[GradingMode, ProblemOutcome]>([
    ['classic', { score: 40, deciding: decided(2, at(20)), penalty: 1200, solvedAt: null, history: history([1, 60], [2, 40]) }],
    ['bestSubmission', { score: 60, deciding: decided(1, at(10)), penalty: 600, solvedAt: null, history: history([1, 60], [2, 60]) }],
    ['bestSubtask', { score: 100, deciding: decided(2, at(20)), penalty: 1200, solvedAt: null, history: history([1, 60], [2, 100]) }],
    ['acm', { score: 0, deciding: null, penalty: 0, solvedAt: null, history: history([1, 0], [2, 0]) }],
  ])('%s', (mode, expected) => {
    expect(scoreProblem(mode, journal, context)).toEqual(expected);
  });
  it('refuses an unknown mode', () => {
    expect(() => scoreProblem('icpc' as GradingMode, journal, context)).toThrow(RangeError);
  });
});

describe('properties over random journals', () => {

  function randomJournal(random: () => number, problemScore: number): JudgedContestSubmission[] {
    const int = (below: number) => Math.floor(random() * below);
    const fullScores = Array.from({ length: 1 + int(4) }, () => 1 + int(50));
    const journal: JudgedContestSubmission[] = [];
    let id = int(100);
    let time = at(-5 + int(10));
    for (let count = int(9); count > 0; count--) {
      id += 1 + int(5);
      time += int(20 * 60_000);
      const parts = fullScores.map((fullScore) => {
        const roll = random();
        const score = roll < 0.3 ? 0 : roll < 0.6 ? fullScore : Math.round(random() * fullScore * 10) / 10;
        return { score, fullScore };
      });
      const raw = parts.reduce((sum, part) => sum + part.score, 0);
      const full = parts.reduce((sum, part) => sum + part.fullScore, 0);
      journal.push({ submissionId: id, submittedAt: time, status: raw === full ? 'accept' : 'reject', score: scaleScore(raw, full, problemScore), subtasks: parts });
    }
    return journal;
  }

  function shuffledWithDuplicates(random: () => number, journal: readonly JudgedContestSubmission[]): JudgedContestSubmission[] {
    const copy = [...journal, ...journal.filter(() => random() < 0.4)];
    for (let i = copy.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [copy[i], copy[j]] = [copy[j] as JudgedContestSubmission, copy[i] as JudgedContestSubmission];
    }
    return copy;
  }

  it('shuffling and duplicating never change the outcome; the history has one entry per submission and never falls in best modes', () => {
    const random = mulberry32(20240101);
    for (let run = 0; run < 400; run++) {
      const mode = GRADING_MODES[run % GRADING_MODES.length] as GradingMode;
      const problemScore = [100, 50, 7, 250][Math.floor(random() * 4)] as number;
      const caseContext = { problemScore, contestStart: T0 };
      const journal = randomJournal(random, problemScore);
      const outcome = scoreProblem(mode, journal, caseContext);
      const label = `run ${run} (${mode}): ${JSON.stringify(journal)}`;

      expect(scoreProblem(mode, shuffledWithDuplicates(random, journal), caseContext), label).toEqual(outcome);
      expect(outcome.history.map((entry) => entry.submissionId), label).toEqual(journal.map((entry) => entry.submissionId));
      expect(outcome.history.at(-1)?.score ?? 0, label).toBe(outcome.score);
      expect(outcome.score, label).toBeGreaterThanOrEqual(0);
      expect(outcome.score, label).toBeLessThanOrEqual(problemScore);
      expect(outcome.penalty, label).toBeGreaterThanOrEqual(0);
      if (outcome.deciding === null) expect(outcome.penalty, label).toBe(0);
      if (mode !== 'acm') expect(outcome.solvedAt, label).toBeNull();
      if (mode !== 'classic') {
        const scores = outcome.history.map((entry) => entry.score);
        scores.forEach((score, i) => expect(score, label).toBeGreaterThanOrEqual(scores[i - 1] ?? 0));
      }
    }
  });
});
