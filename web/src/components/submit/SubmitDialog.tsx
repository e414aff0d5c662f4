/**
 * The file-upload submit dialog ("ส่งข้อ {name}"): a drop zone over a real file input, the language (picked
 * from the file's extension, C++ by default), ส่ง / ยกเลิก. The file is checked here before it is sent
 * (required, an accepted extension, not empty, at most 10 KiB), with the reason shown at the field.
 * `submitSource` sends editor text the same way, as a file named `{problemId}.{cpp|c|py}`.
 */
import { useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useId, useState, type DragEvent, type FormEvent } from 'react';
import { submissionContract, type Submission } from '@otog/schemas/api/submission';
import type { Language } from '@otog/schemas/common/judging';
import { ApiError, callApi, errorMessage } from '../../lib/api.ts';
import { toast } from '../../lib/toast.tsx';
import { invalidatePaths } from '../../lib/query.ts';
import { Button } from '../ui/Button.tsx';
import { Dialog } from '../ui/Dialog.tsx';
import { SelectField } from '../ui/Field.tsx';
import { UploadIcon } from '../ui/icons.tsx';
import { ACCEPTED_EXTENSIONS, LANGUAGE_EXTENSION, LANGUAGE_OPTIONS, MAX_SOURCE_BYTES, isLanguage, languageOfFile, sizeText } from '../../lib/languages.ts';
import './submit.css';

export interface SubmitDialogProps {
  problem: { id: number; name: string };
  open: boolean;
  onClose(): void;
  onSubmitted?(submission: Submission): void;
  contestId?: number;
}

/** Why a file cannot be sent, in Thai; undefined when it can. */
export function fileProblem(file: File | null): string | undefined {
  if (!file) return 'กรุณาเลือกไฟล์';
  if (!languageOfFile(file.name)) return `รองรับเฉพาะไฟล์ ${ACCEPTED_EXTENSIONS.join(' ')}`;
  if (file.size === 0) return 'ไฟล์นี้ว่างเปล่า';
  if (file.size > MAX_SOURCE_BYTES) return `ไฟล์มีขนาดเกิน ${sizeText(MAX_SOURCE_BYTES)}`;
  return undefined;
}

/** Why editor text cannot be sent, in Thai; undefined when it can. */
export function sourceProblem(code: string): string | undefined {
  if (code.trim() === '') return 'กรุณาเขียนโค้ดก่อนส่ง';
  if (new TextEncoder().encode(code).length > MAX_SOURCE_BYTES) return `โค้ดมีขนาดเกิน ${sizeText(MAX_SOURCE_BYTES)}`;
  return undefined;
}

function upload(problemId: number, language: Language, file: File, contestId?: number): Promise<Submission> {
  const form = new FormData();
  form.append('language', language);
  form.append('sourceCode', file, file.name);
  return callApi(submissionContract.uploadFile, { params: { problemId }, query: { contestId }, form });
}

/** Submits editor text as the file `{problemId}.{cpp|c|py}`. */
export function submitSource(problemId: number, language: Language, code: string, contestId?: number): Promise<Submission> {
  const file = new File([code], `${problemId}.${LANGUAGE_EXTENSION[language]}`, { type: 'text/plain' });
  return upload(problemId, language, file, contestId);
}

/** After a submission: every submission list and the problem table (status, counts) are out of date. */
export function invalidateAfterSubmit(queryClient: QueryClient): Promise<void> {
  return invalidatePaths(queryClient, '/submission', '/problem');
}

/** The toast for a failed submission: the server's reason where it is one a contestant can act on. */
export function submitErrorMessage(error: unknown): string {
  if (error instanceof ApiError && [401, 403, 404, 413, 429].includes(error.status)) return errorMessage(error);
  if (error instanceof TypeError) return errorMessage(error);
  return 'ส่งไม่สำเร็จ กรุณาลองใหม่อีกครั้ง';
}

/** Sends with the submit toasts ("กำลังส่งข้อ {name}...", "ส่งสำเร็จแล้ว", or why it failed). */
export function withSubmitToasts(name: string, sending: Promise<Submission>): Promise<Submission> {
  return toast.promise(sending, { loading: `กำลังส่งข้อ ${name}...`, success: 'ส่งสำเร็จแล้ว', error: submitErrorMessage });
}

export function SubmitDialog(props: SubmitDialogProps) {
  // Mounted only while open, so every opening starts empty.
  return props.open ? <SubmitForm {...props} /> : null;
}

function SubmitForm({ problem, onClose, onSubmitted, contestId }: SubmitDialogProps) {
  const queryClient = useQueryClient();
  const formId = useId();
  const inputId = useId();
  const [file, setFile] = useState<File | null>(null);
  const [language, setLanguage] = useState<Language>('cpp');
  const [error, setError] = useState<string | undefined>();
  const [dragging, setDragging] = useState(false);
  const [pending, setPending] = useState(false);

  const choose = (chosen: File | null) => {
    setFile(chosen);
    setError(chosen ? fileProblem(chosen) : undefined);
    const detected = chosen ? languageOfFile(chosen.name) : undefined;
    if (detected) setLanguage(detected);
  };

  const onDrop = (event: DragEvent<HTMLDivElement>) => {
    event.preventDefault();
    setDragging(false);
    choose(event.dataTransfer.files[0] ?? null);
  };

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const problemWithFile = fileProblem(file);
    setError(problemWithFile);
    if (problemWithFile || !file) return;
    setPending(true);
    try {
      const submission = await withSubmitToasts(problem.name, upload(problem.id, language, file, contestId));
      void invalidateAfterSubmit(queryClient);
      onClose();
      onSubmitted?.(submission);
    } catch {
      // The toast said why; the dialog stays open to try again.
    } finally {
      setPending(false);
    }
  };

  return (
    <Dialog
      open
      onClose={onClose}
      title={`ส่งข้อ ${problem.name}`}
      size="sm"
      footer={
        <>
          <Button variant="ghost" onClick={onClose}>
            ยกเลิก
          </Button>
          <Button type="submit" form={formId} variant="primary" loading={pending}>
            ส่ง
          </Button>
        </>
      }
    >
      <form id={formId} className="form" noValidate onSubmit={(event) => void onSubmit(event)}>
        <div className={`field${error ? ' field-invalid' : ''}`}>
          <div
            className="dropzone submit-dropzone"
            data-active={dragging}
            onDragEnter={(event) => {
              event.preventDefault();
              setDragging(true);
            }}
            onDragOver={(event) => {
              event.preventDefault();
              event.dataTransfer.dropEffect = 'copy';
            }}
            onDragLeave={(event) => {
              if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setDragging(false);
            }}
            onDrop={onDrop}
          >
            <UploadIcon width={28} height={28} />
            <p className="submit-drop-hint">วางไฟล์ที่นี่</p>
            <input
              id={inputId}
              type="file"
              className="sr-only submit-file-input"
              accept={ACCEPTED_EXTENSIONS.join(',')}
              aria-invalid={error ? true : undefined}
              aria-describedby={error ? `${inputId}-error` : `${inputId}-name`}
              onChange={(event) => choose(event.target.files?.[0] ?? null)}
            />
            <div className="submit-file-row">
              <label htmlFor={inputId} className="btn btn-outline btn-sm submit-browse">
                ค้นหาไฟล์
              </label>
              <span id={`${inputId}-name`} className={file ? 'submit-file-name' : 'submit-file-name muted'} title={file?.name}>
                {file?.name ?? 'ยังไม่ได้เลือกไฟล์'}
              </span>
            </div>
          </div>
          {error ? (
            <p id={`${inputId}-error`} className="field-error" role="alert">
              {error}
            </p>
          ) : (
            <p className="field-hint">ไฟล์ {ACCEPTED_EXTENSIONS.join(' ')} ขนาดไม่เกิน {sizeText(MAX_SOURCE_BYTES)}</p>
          )}
        </div>
        <SelectField label="ภาษา" name="language" value={language} onChange={(event) => isLanguage(event.target.value) && setLanguage(event.target.value)}>
          {LANGUAGE_OPTIONS.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </SelectField>
      </form>
    </Dialog>
  );
}
