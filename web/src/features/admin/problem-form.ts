/**
 * The admin problem form's rules, said in Thai before anything is sent: the bounds of ProblemFormSchema
 * (schemas/api/problem) and the file types. Also reads the server's 400/413 messages back onto the fields:
 * "score: must be at least 1; pdf: the file is not a PDF ...; zip: problem; problem" (the zip's problems
 * come last, so every part after "zip:" is one of them).
 */
import {
  PROBLEM_MEMORY_LIMIT_MAX_MB,
  PROBLEM_SCORE_MAX,
  PROBLEM_TIME_LIMIT_MAX_SECONDS,
  PROBLEM_TIME_LIMIT_MIN_SECONDS,
} from '@otog/schemas/api/problem';

export const TEXT_FIELDS = ['name', 'sname', 'score', 'timeLimit', 'memoryLimit', 'case'] as const;
export type TextField = (typeof TEXT_FIELDS)[number];
export type FormField = TextField | 'pdf' | 'zip';
export type ProblemValues = Record<TextField, string>;
export type FieldErrors = Partial<Record<FormField, string>>;

export const EMPTY_VALUES: ProblemValues = { name: '', sname: '', score: '', timeLimit: '', memoryLimit: '', case: '' };

const TEXT_MAX = 255;
const WHOLE = /^\+?\d+$/;
const DECIMAL = /^\+?(\d+(\.\d*)?|\.\d+)$/;
const PDF_MAGIC = '%PDF-';

const hasExtension = (file: File, extension: string) => file.name.toLowerCase().endsWith(extension);

function wholeNumber(value: string, label: string, max: number, unit = ''): string | undefined {
  if (!value) return `กรุณากรอก${label}`;
  if (!WHOLE.test(value)) return `${label}ต้องเป็นจำนวนเต็ม`;
  const number = Number(value);
  if (number < 1 || number > max) return `${label}ต้องอยู่ระหว่าง 1 ถึง ${max.toLocaleString('th-TH')}${unit}`;
  return undefined;
}

/** Whether the file starts like a PDF (the server refuses anything else). */
async function looksLikePdf(file: File): Promise<boolean> {
  try {
    const head = new Uint8Array(await file.slice(0, PDF_MAGIC.length).arrayBuffer());
    return String.fromCharCode(...head) === PDF_MAGIC;
  } catch {
    // Unreadable here: let the server decide.
    return true;
  }
}

export async function validateProblem(
  values: ProblemValues,
  files: { pdf: File | null; zip: File | null },
  creating: boolean,
): Promise<FieldErrors> {
  const errors: FieldErrors = {};
  const name = values.name.trim();
  if (!name) errors.name = 'กรุณากรอกชื่อโจทย์';
  else if (name.length > TEXT_MAX) errors.name = `ชื่อโจทย์ยาวได้ไม่เกิน ${TEXT_MAX} ตัวอักษร`;
  const sname = values.sname.trim();
  if (!sname) errors.sname = 'กรุณากรอกชื่อเล่น';
  else if (sname.length > TEXT_MAX) errors.sname = `ชื่อเล่นยาวได้ไม่เกิน ${TEXT_MAX} ตัวอักษร`;
  const score = wholeNumber(values.score.trim(), 'คะแนน', PROBLEM_SCORE_MAX);
  if (score) errors.score = score;
  const time = values.timeLimit.trim();
  if (!time) errors.timeLimit = 'กรุณากรอกเวลา';
  else if (!DECIMAL.test(time)) errors.timeLimit = 'เวลาต้องเป็นตัวเลข หน่วยเป็นวินาที เช่น 1 หรือ 0.5';
  else if (Number(time) < PROBLEM_TIME_LIMIT_MIN_SECONDS || Number(time) > PROBLEM_TIME_LIMIT_MAX_SECONDS) {
    errors.timeLimit = `เวลาต้องอยู่ระหว่าง ${PROBLEM_TIME_LIMIT_MIN_SECONDS} ถึง ${PROBLEM_TIME_LIMIT_MAX_SECONDS} วินาที`;
  }
  const memory = wholeNumber(values.memoryLimit.trim(), 'หน่วยความจำ', PROBLEM_MEMORY_LIMIT_MAX_MB, ' MB');
  if (memory) errors.memoryLimit = memory;
  if (values.case.trim().length > TEXT_MAX) errors.case = `จำนวนเคสยาวได้ไม่เกิน ${TEXT_MAX} ตัวอักษร`;

  if (files.pdf) {
    if (!hasExtension(files.pdf, '.pdf')) errors.pdf = 'ไฟล์โจทย์ต้องเป็นไฟล์ .pdf';
    else if (files.pdf.size === 0) errors.pdf = 'ไฟล์โจทย์ว่างเปล่า';
    else if (!(await looksLikePdf(files.pdf))) errors.pdf = 'ไฟล์นี้ไม่ใช่ PDF (เนื้อไฟล์ต้องขึ้นต้นด้วย %PDF-)';
  } else if (creating) errors.pdf = 'กรุณาเลือกไฟล์โจทย์ (PDF)';
  if (files.zip) {
    if (!hasExtension(files.zip, '.zip')) errors.zip = 'ไฟล์เทสต์เคสต้องเป็นไฟล์ .zip';
    else if (files.zip.size === 0) errors.zip = 'ไฟล์เทสต์เคสว่างเปล่า';
  } else if (creating) errors.zip = 'กรุณาเลือกไฟล์เทสต์เคส (ZIP)';
  return errors;
}

/** The multipart body: the text fields first, then the files (only those chosen). */
export function problemFormData(values: ProblemValues, files: { pdf: File | null; zip: File | null }): FormData {
  const form = new FormData();
  for (const field of TEXT_FIELDS) form.append(field, values[field].trim());
  if (files.pdf) form.append('pdf', files.pdf, files.pdf.name);
  if (files.zip) form.append('zip', files.zip, files.zip.name);
  return form;
}

export interface ServerProblems {
  readonly fields: FieldErrors;
  /** The test-data package's problems, verbatim. */
  readonly zip: string[];
  /** Anything not about a field. */
  readonly other: string[];
}

const FIELD_PREFIX = /^(name|sname|score|timeLimit|memoryLimit|case|pdf|zip): ([\s\S]*)$/;
const TOO_LARGE = /^File (pdf|zip) is too large \(at most (\d+) bytes\)$/;
/** The one zip problem that itself contains "; " (testdata-validation.ts): glued back to the part before it. */
const CONTINUATION = /^files must be at the zip's root$/;

/** A 400 or 413 from POST/PUT /problem, sorted onto the form's fields. */
export function readServerProblems(status: number, message: string): ServerProblems {
  const result: ServerProblems = { fields: {}, zip: [], other: [] };
  const add = (field: FormField, text: string) => {
    result.fields[field] = result.fields[field] ? `${result.fields[field]}; ${text}` : text;
  };
  if (status === 413) {
    const large = TOO_LARGE.exec(message);
    const limit = large ? ` (ไม่เกิน ${Math.floor(Number(large[2]) / 1024 / 1024)} MB)` : '';
    add((large?.[1] as 'pdf' | 'zip' | undefined) ?? 'zip', `ไฟล์มีขนาดใหญ่เกินไป${limit}`);
    return result;
  }
  let current: FormField | null = null;
  for (const part of message.split('; ')) {
    const prefixed = FIELD_PREFIX.exec(part);
    let text = part;
    if (prefixed) {
      current = prefixed[1] as FormField;
      text = prefixed[2] ?? '';
    } else if (current !== 'zip' && part.startsWith('case is ')) {
      // PUT without a new zip: "case is "5" but the uploaded test data has 3 tests; upload a new zip to change it".
      current = 'case';
    }
    if (current === 'zip') {
      if (CONTINUATION.test(text) && result.zip.length) result.zip[result.zip.length - 1] += `; ${text}`;
      else result.zip.push(text);
    } else if (current) add(current, text);
    else result.other.push(text);
  }
  return result;
}
