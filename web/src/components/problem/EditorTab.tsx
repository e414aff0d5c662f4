/**
 * The editor tab: CodeMirror (loaded on first use) pre-filled with the caller's latest submission of the
 * problem, or a C++ skeleton; under it the language, "ส่ง" (the text as a file) and the file dialog.
 * The draft lives in the page, so switching tabs keeps it.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useId, useState } from 'react';
import type { Problem } from '@otog/schemas/api/problem';
import { submissionContract } from '@otog/schemas/api/submission';
import type { Language } from '@otog/schemas/common/judging';
import { LANGUAGE_OPTIONS, isLanguage } from '../../lib/languages.ts';
import { SubmitDialog, invalidateAfterSubmit, sourceProblem, submitSource, withSubmitToasts } from '../submit/SubmitDialog.tsx';
import { Button } from '../ui/Button.tsx';
import { LoadFailed } from '../ui/Empty.tsx';
import { UploadIcon } from '../ui/icons.tsx';
import { Spinner } from '../ui/Spinner.tsx';
import { apiQuery } from '../../lib/query.ts';
import { useTheme } from '../../lib/theme.tsx';
import './problem.css';

const CodeEditor = lazy(() => import('./CodeEditor.tsx'));

export const CPP_SKELETON = '#include <iostream>\nusing namespace std;\n\nint main() {\n\n  return 0;\n}';

export interface Draft {
  readonly code: string;
  readonly language: Language;
}

function EditorPlaceholder() {
  return (
    <div className="code-editor code-editor-loading">
      <Spinner label="กำลังโหลดตัวแก้ไขโค้ด..." />
    </div>
  );
}

export interface EditorTabProps {
  problem: Problem;
  draft: Draft | null;
  onDraft(draft: Draft): void;
  onSubmitted(): void;
  /** Submissions count in this contest (the contest problem page). */
  contestId?: number;
}

export function EditorTab({ problem, draft, onDraft, onSubmitted, contestId }: EditorTabProps) {
  const queryClient = useQueryClient();
  const { resolved } = useTheme();
  const languageId = useId();
  const errorId = useId();
  const [error, setError] = useState<string | undefined>();
  const [pending, setPending] = useState(false);
  const [fileDialog, setFileDialog] = useState(false);
  const latest = useQuery({
    ...apiQuery(submissionContract.getLatestSubmissionByProblemId, { params: { problemId: problem.id } }),
    enabled: draft === null,
    staleTime: Infinity,
  });

  if (draft === null && latest.isPending) return <EditorPlaceholder />;
  if (draft === null && latest.isError) {
    return (
      <LoadFailed error={latest.error} fallback='โหลดโค้ดล่าสุดไม่สำเร็จ' onRetry={() => void latest.refetch()} />
    );
  }
  const previous = latest.data?.submission;
  const current: Draft = draft ?? (previous ? { code: previous.sourceCode, language: previous.language } : { code: CPP_SKELETON, language: 'cpp' });

  const send = async () => {
    const problemWithCode = sourceProblem(current.code);
    setError(problemWithCode);
    if (problemWithCode) return;
    setPending(true);
    try {
      await withSubmitToasts(problem.name, submitSource(problem.id, current.language, current.code, contestId));
      void invalidateAfterSubmit(queryClient);
      onSubmitted();
    } catch {
      // The toast said why.
    } finally {
      setPending(false);
    }
  };

  return (
    <div className="stack editor-tab">
      <div className={error ? 'editor-frame editor-frame-invalid' : 'editor-frame'}>
        <Suspense fallback={<EditorPlaceholder />}>
          <CodeEditor
            initialDoc={current.code}
            language={current.language}
            dark={resolved === 'dark'}
            label="โค้ดคำตอบ"
            invalid={error !== undefined}
            describedBy={error ? errorId : undefined}
            onChange={(code) => {
              onDraft({ code, language: current.language });
              if (error) setError(undefined);
            }}
          />
        </Suspense>
      </div>
      {error ? (
        <p id={errorId} className="field-error" role="alert">
          {error}
        </p>
      ) : null}
      <div className="editor-actions">
        <div className="editor-language">
          <label htmlFor={languageId}>
            ภาษา
          </label>
          <select
            id={languageId}
            className="input select"
            value={current.language}
            onChange={(event) => isLanguage(event.target.value) && onDraft({ code: current.code, language: event.target.value })}
          >
            {LANGUAGE_OPTIONS.map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </select>
        </div>
        <div className="row editor-buttons">
          <Button variant="outline" icon={<UploadIcon width={16} height={16} />} onClick={() => setFileDialog(true)}>
            ส่งแบบไฟล์
          </Button>
          <Button variant="primary" loading={pending} onClick={() => void send()}>
            ส่ง
          </Button>
        </div>
      </div>
      <SubmitDialog problem={problem} contestId={contestId} open={fileDialog} onClose={() => setFileDialog(false)} onSubmitted={onSubmitted} />
    </div>
  );
}
