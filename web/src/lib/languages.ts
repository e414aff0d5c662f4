/** The languages a submission may use, their labels, and the file names they go by. */
import type { Language } from '@otog/schemas/common/judging';
import { config } from './config.ts';

export const LANGUAGE_OPTIONS: ReadonlyArray<{ readonly value: Language; readonly label: string }> = [
  { value: 'cpp', label: 'C++' },
  { value: 'c', label: 'C' },
  { value: 'python', label: 'Python' },
];

export const LANGUAGE_LABEL: Record<Language, string> = { cpp: 'C++', c: 'C', python: 'Python' };

/** The extension a submitted editor text is named with. */
export const LANGUAGE_EXTENSION: Record<Language, string> = { cpp: 'cpp', c: 'c', python: 'py' };

/** The file types the upload accepts, and the language each one means. */
export const EXTENSION_LANGUAGE: Readonly<Record<string, Language>> = { c: 'c', cc: 'cpp', cpp: 'cpp', py: 'python' };
export const ACCEPTED_EXTENSIONS = Object.keys(EXTENSION_LANGUAGE).map((extension) => `.${extension}`);

/** The server's source limit (SUBMISSION_MAX_BYTES, 10 KiB by default). */
export const MAX_SOURCE_BYTES = config.submissionMaxBytes;

/** "10 KB (10,240 ไบต์)" */
export const sizeText = (bytes: number) => `${Number((bytes / 1024).toFixed(1)).toLocaleString('th-TH')} KB (${bytes.toLocaleString('th-TH')} ไบต์)`;

export function extensionOf(fileName: string): string {
  const dot = fileName.lastIndexOf('.');
  return dot < 0 ? '' : fileName.slice(dot + 1).toLowerCase();
}

export function languageOfFile(fileName: string): Language | undefined {
  return EXTENSION_LANGUAGE[extensionOf(fileName)];
}

export function isLanguage(value: string): value is Language {
  return value === 'cpp' || value === 'c' || value === 'python';
}
