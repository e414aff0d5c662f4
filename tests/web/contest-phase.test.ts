/** The contest clocks and rules the contest pages show (web/src/features/contests/phase.ts), as tables. */
import { describe, expect, it } from 'vitest';
import type { ScoreboardPolicy } from '@otog/schemas/common/contest';
import {
  contestPhase,
  formatContestClock,
  formatCountdown,
  formatThaiDuration,
  scoreboardVisible,
  scoreTone,
  untilNextBoundary,
  type ContestPhase,
} from '../../web/src/features/contests/phase.ts';

const START = Date.parse('2026-11-26T10:00:00Z');
const END = Date.parse('2026-11-26T13:00:00Z');
const contest = { timeStart: new Date(START).toISOString(), timeEnd: new Date(END).toISOString() };
const SECOND = 1_000;
const HOUR = 3_600 * SECOND;

describe('contestPhase and untilNextBoundary', () => {
  it.each<[string, number, ContestPhase, number]>([
    ['a day before', START - 24 * HOUR, 'PENDING', 24 * HOUR],
    ['a millisecond before the start', START - 1, 'PENDING', 1],
    ['at the start', START, 'RUNNING', 3 * HOUR],
    ['in the middle', START + HOUR, 'RUNNING', 2 * HOUR],
    ['a millisecond before the end', END - 1, 'RUNNING', 1],
    ['at the end', END, 'FINISHED', 0],
    ['a week after', END + 7 * 24 * HOUR, 'FINISHED', 0],
  ])('%s: %s, %d ms to the next boundary', (_, now, phase, until) => {
    expect(contestPhase(contest, now)).toBe(phase);
    expect(untilNextBoundary(contest, now)).toBe(until);
  });
});

describe('formatCountdown', () => {
  it.each<[number, string]>([
    [0, '00 : 00 : 00'],
    [-5 * SECOND, '00 : 00 : 00'],
    [999, '00 : 00 : 00'],
    [SECOND, '00 : 00 : 01'],
    [59 * SECOND, '00 : 00 : 59'],
    [61 * SECOND, '00 : 01 : 01'],
    [HOUR - SECOND, '00 : 59 : 59'],
    [2 * HOUR + 3 * 60 * SECOND + 4 * SECOND, '02 : 03 : 04'],
    [123 * HOUR, '123 : 00 : 00'],
  ])('%d ms → %s', (milliseconds, text) => {
    expect(formatCountdown(milliseconds)).toBe(text);
  });
});

describe('formatThaiDuration', () => {
  it.each<[number, string]>([
    [0, '0 วินาที'],
    [-HOUR, '0 วินาที'],
    [45 * SECOND, '45 วินาที'],
    [90 * SECOND, '1 นาที 30 วินาที'],
    [2 * HOUR + 30 * 60 * SECOND, '2 ชั่วโมง 30 นาที'],
    [3 * HOUR, '3 ชั่วโมง'],
    [26 * HOUR + 5 * SECOND, '1 วัน 2 ชั่วโมง 5 วินาที'],
  ])('%d ms → %s', (milliseconds, text) => {
    expect(formatThaiDuration(milliseconds)).toBe(text);
  });
});

describe('formatContestClock', () => {
  it.each<[number, string]>([
    [0, '0:00:00'],
    [-3, '0:00:00'],
    [59.9, '0:00:59'],
    [3_661, '1:01:01'],
    [36_000, '10:00:00'],
  ])('%d s → %s', (seconds, text) => {
    expect(formatContestClock(seconds)).toBe(text);
  });
});

describe('scoreboardVisible', () => {
  const contestant = { isAdmin: false, offline: false };
  const admin = { isAdmin: true, offline: false };
  const onsite = { isAdmin: false, offline: true };
  const onsiteAdmin = { isAdmin: true, offline: true };
  it.each<[ScoreboardPolicy, ContestPhase, typeof contestant, boolean]>([
    ['DURING_CONTEST', 'PENDING', contestant, false],
    ['DURING_CONTEST', 'RUNNING', contestant, true],
    ['DURING_CONTEST', 'FINISHED', contestant, true],
    ['AFTER_CONTEST', 'PENDING', contestant, false],
    ['AFTER_CONTEST', 'RUNNING', contestant, false],
    ['AFTER_CONTEST', 'FINISHED', contestant, true],
    ['NOT_VISIBLE', 'RUNNING', contestant, false],
    ['NOT_VISIBLE', 'FINISHED', contestant, false],
    ['NOT_VISIBLE', 'PENDING', admin, true],
    ['AFTER_CONTEST', 'RUNNING', admin, true],
    ['DURING_CONTEST', 'FINISHED', onsite, false],
    ['AFTER_CONTEST', 'FINISHED', onsite, false],
    ['NOT_VISIBLE', 'RUNNING', onsiteAdmin, true],
  ])('%s while %s for %o: %s', (policy, phase, viewer, visible) => {
    expect(scoreboardVisible(policy, phase, viewer)).toBe(visible);
  });
});

describe('scoreTone', () => {
  it.each<[number, number, string]>([
    [100, 100, 'green'],
    [0, 100, 'red'],
    [1, 100, 'yellow'],
    [99, 100, 'yellow'],
    [0, 0, 'green'],
  ])('%d of %d → %s', (score, full, tone) => {
    expect(scoreTone(score, full)).toBe(tone);
  });
});
