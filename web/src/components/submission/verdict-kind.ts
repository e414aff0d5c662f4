/**
 * What kind of verdict a submission got, named in Thai for the submission lists: from its status and,
 * for a rejected one, the first character of the result string that is not a pass (`P`), a bracket or a
 * skip (`S`: the tests after a failure in a group, or a subtask whose required one failed).
 */
import type { RuntimeErrorKind, SubmissionStatus } from '@otog/schemas/common/judging';

export type VerdictKind =
  | 'waiting'
  | 'grading'
  | 'accepted'
  | 'partial'
  | 'wrongAnswer'
  | 'timeLimit'
  | 'runtimeError'
  | 'memoryLimit'
  | 'compileError'
  | 'problemError'
  | 'judgeError'
  | 'rejected';

export const VERDICT_KIND_LABEL: Record<VerdictKind, string> = {
  waiting: 'รอตรวจ',
  grading: 'กำลังตรวจ',
  accepted: 'ผ่าน',
  partial: 'ถูกบางส่วน',
  wrongAnswer: 'คำตอบผิด',
  timeLimit: 'เกินเวลา (TLE)',
  runtimeError: 'รันไทม์ผิดพลาด',
  memoryLimit: 'หน่วยความจำเกิน',
  compileError: 'คอมไพล์ไม่ผ่าน',
  problemError: 'โจทย์มีปัญหา',
  judgeError: 'ระบบตรวจขัดข้อง',
  rejected: 'ไม่ผ่าน',
};

const KIND_OF_CHAR: Readonly<Record<string, VerdictKind>> = {
  '%': 'partial',
  '-': 'wrongAnswer',
  T: 'timeLimit',
  X: 'runtimeError',
  '?': 'problemError',
  '!': 'judgeError',
};

/** Characters a verdict string is made of (anything else is a special result such as "Subtask Error"). */
const VERDICT_STRING = /^[[\]()P%\-TXS?!]*$/;
const NEITHER_PASS_NOR_SKIP = /[^[\]()PS]/;

/**
 * The kind of a submission's verdict. `runtimeErrorKind` (known only where the verdict rows are) tells a
 * crash from the memory limit: the result string writes both as `X`.
 */
export function verdictKind(status: SubmissionStatus, result: string | null | undefined, runtimeErrorKind?: RuntimeErrorKind): VerdictKind {
  switch (status) {
    case 'waiting':
      return 'waiting';
    case 'grading':
      return 'grading';
    case 'accept':
      return 'accepted';
    case 'compileError':
      return 'compileError';
    case 'judgeError':
      return 'judgeError';
    case 'reject':
      break;
  }
  const text = (result ?? '').trim();
  if (text === 'Compilation Error') return 'compileError';
  if (text === 'Judge Error') return 'judgeError';
  if (!VERDICT_STRING.test(text)) return text === '' ? 'rejected' : 'problemError';
  const first = text.match(NEITHER_PASS_NOR_SKIP)?.[0];
  const kind = first === undefined ? 'rejected' : (KIND_OF_CHAR[first] ?? 'rejected');
  return kind === 'runtimeError' && runtimeErrorKind === 'MEMORY_LIMIT_EXCEEDED' ? 'memoryLimit' : kind;
}
