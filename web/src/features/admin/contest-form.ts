/**
 * The admin contest form's values and rules, said in Thai before anything is sent (the same rules as
 * ContestInputSchema), the Thai names of the contest settings, and the server's 400 messages read back
 * onto the fields. Times are edited as local date and time strings, the way the inputs hold them.
 */
import { CONTEST_NAME_MAX, type ContestMode, type GradingMode, type ScoreboardPolicy } from '@otog/schemas/common/contest';
import { FREEZE_AT_MESSAGE, TIME_END_MESSAGE, type ContestInput } from '@otog/schemas/api/contest';

/** As OTOG's admin shows them: the scoring modes keep their English names. */
export const GRADING_MODE_LABELS: Record<GradingMode, string> = {
  acm: 'ACM',
  classic: 'Classic',
  bestSubmission: 'Best Submission',
  bestSubtask: 'Best Subtask',
};
export const CONTEST_MODE_LABELS: Record<ContestMode, string> = { rated: 'Rated', unrated: 'Unrated' };
export const SCOREBOARD_POLICY_LABELS: Record<ScoreboardPolicy, string> = {
  AFTER_CONTEST: 'หลังจบการแข่งขัน',
  DURING_CONTEST: 'ระหว่างการแข่งขัน',
  NOT_VISIBLE: 'ไม่แสดง',
};

/** A moment as the date and time inputs hold it: 'YYYY-MM-DD' and 'HH:mm', both '' when unset. */
export interface LocalMoment {
  readonly date: string;
  readonly time: string;
}
export const NO_MOMENT: LocalMoment = { date: '', time: '' };

const pad = (value: number) => String(value).padStart(2, '0');

export function localMoment(value: string | Date): LocalMoment {
  const date = value instanceof Date ? value : new Date(value);
  return { date: `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`, time: `${pad(date.getHours())}:${pad(date.getMinutes())}` };
}

/** The instant the inputs name in the browser's time zone; null when incomplete or invalid. */
export function momentDate({ date, time }: LocalMoment): Date | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || !/^\d{2}:\d{2}$/.test(time)) return null;
  // Without an offset, a date-time string is read as local time.
  const instant = new Date(`${date}T${time}`);
  return Number.isNaN(instant.getTime()) ? null : instant;
}

export const isUnset = (moment: LocalMoment) => !moment.date && !moment.time;

export interface ContestValues {
  readonly name: string;
  readonly gradingMode: GradingMode;
  readonly mode: ContestMode;
  readonly scoreboardPolicy: ScoreboardPolicy;
  readonly timeStart: LocalMoment;
  readonly timeEnd: LocalMoment;
  readonly freezeAt: LocalMoment;
}
export type ContestField = keyof ContestValues;
export type ContestErrors = Partial<Record<ContestField, string>>;

const HOUR = 3_600_000;

/** A new contest: OTOG's defaults, starting at the next full hour and lasting three hours. */
export function newContestValues(now = new Date()): ContestValues {
  const start = new Date(Math.ceil(now.getTime() / HOUR) * HOUR);
  return {
    name: '',
    gradingMode: 'classic',
    mode: 'unrated',
    scoreboardPolicy: 'AFTER_CONTEST',
    timeStart: localMoment(start),
    timeEnd: localMoment(new Date(start.getTime() + 3 * HOUR)),
    freezeAt: NO_MOMENT,
  };
}

export function contestValues(contest: {
  name: string;
  gradingMode: GradingMode;
  mode: ContestMode;
  scoreboardPolicy: ScoreboardPolicy;
  timeStart: string;
  timeEnd: string;
  freezeAt?: string | null | undefined;
}): ContestValues {
  return {
    name: contest.name,
    gradingMode: contest.gradingMode,
    mode: contest.mode,
    scoreboardPolicy: contest.scoreboardPolicy,
    timeStart: localMoment(contest.timeStart),
    timeEnd: localMoment(contest.timeEnd),
    freezeAt: contest.freezeAt ? localMoment(contest.freezeAt) : NO_MOMENT,
  };
}

export const TIME_END_THAI = 'เวลาจบต้องมาหลังจากเวลาเริ่ม';
export const FREEZE_AT_THAI = 'เวลาแช่แข็งต้องอยู่ระหว่างเวลาเริ่มและเวลาจบ';

function momentError(moment: LocalMoment, what: string): string | undefined {
  if (isUnset(moment)) return `กรุณาเลือกวันที่และเวลา${what}`;
  if (!moment.date) return `กรุณาเลือกวันที่${what}`;
  if (!moment.time) return `กรุณาเลือกเวลา${what}`;
  return momentDate(moment) ? undefined : `วันที่หรือเวลา${what}ไม่ถูกต้อง`;
}

/** The errors to show, or the body to send when there are none. */
export function checkContest(values: ContestValues): { errors: ContestErrors; body: ContestInput | null } {
  const errors: ContestErrors = {};
  const name = values.name.trim();
  if (!name) errors.name = 'กรุณากรอกชื่อการแข่งขัน';
  else if (name.length > CONTEST_NAME_MAX) errors.name = `ชื่อการแข่งขันยาวได้ไม่เกิน ${CONTEST_NAME_MAX} ตัวอักษร`;
  const startError = momentError(values.timeStart, 'เริ่ม');
  if (startError) errors.timeStart = startError;
  const endError = momentError(values.timeEnd, 'จบ');
  if (endError) errors.timeEnd = endError;
  const start = momentDate(values.timeStart);
  const end = momentDate(values.timeEnd);
  if (start && end && end <= start) errors.timeEnd = TIME_END_THAI;
  let freeze: Date | null = null;
  if (!isUnset(values.freezeAt)) {
    const freezeError = momentError(values.freezeAt, 'แช่แข็ง');
    freeze = momentDate(values.freezeAt);
    if (freezeError) errors.freezeAt = freezeError;
    else if (start && end && freeze && (freeze < start || freeze > end)) errors.freezeAt = FREEZE_AT_THAI;
  }
  if (Object.keys(errors).length > 0 || !start || !end) return { errors, body: null };
  return {
    errors,
    body: {
      name,
      gradingMode: values.gradingMode,
      mode: values.mode,
      scoreboardPolicy: values.scoreboardPolicy,
      timeStart: start.toISOString(),
      timeEnd: end.toISOString(),
      freezeAt: freeze ? freeze.toISOString() : null,
    },
  };
}

const FIELDS: readonly ContestField[] = ['name', 'gradingMode', 'mode', 'scoreboardPolicy', 'timeStart', 'timeEnd', 'freezeAt'];
const KNOWN: Record<string, string> = { [TIME_END_MESSAGE]: TIME_END_THAI, [FREEZE_AT_MESSAGE]: FREEZE_AT_THAI };

/**
 * A 400 from POST/PUT /contest onto the fields: "body.timeEnd: timeEnd must be after timeStart; body.name: ..."
 * (a validation failure), or a bare rule message (the server's check of the merged settings).
 */
export function readServerErrors(message: string): { fields: ContestErrors; other: string[] } {
  const fields: ContestErrors = {};
  const other: string[] = [];
  for (const part of message.split('; ')) {
    const prefixed = /^(?:body\.)?(\w+): ([\s\S]*)$/.exec(part);
    const text = prefixed?.[2] ?? part;
    const field = (FIELDS as readonly string[]).includes(prefixed?.[1] ?? '')
      ? (prefixed![1] as ContestField)
      : text === TIME_END_MESSAGE
        ? 'timeEnd'
        : text === FREEZE_AT_MESSAGE
          ? 'freezeAt'
          : null;
    const thai = KNOWN[text] ?? `เซิร์ฟเวอร์ไม่รับข้อมูลนี้: ${text}`;
    if (field) fields[field] = fields[field] ? `${fields[field]}; ${thai}` : thai;
    else other.push(thai);
  }
  return { fields, other };
}
