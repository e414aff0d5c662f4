/**
 * Add or edit a problem (multipart POST /problem or PUT /problem/:id). Checked in Thai before sending; on
 * a 400 the server's detail is shown at its field, the test-data problems as a list under the zip.
 * Editing keeps the PDF and the test data unless new files are chosen.
 */
import { useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { flushSync } from 'react-dom';
import { problemContract } from '@otog/schemas/api/problem';
import { Button } from '../../components/ui/Button.tsx';
import { Dialog } from '../../components/ui/Dialog.tsx';
import { TextField } from '../../components/ui/Field.tsx';
import { ApiError, callApi, errorMessage } from '../../lib/api.ts';
import { toast } from '../../lib/toast.tsx';
import { FileField } from './FileField.tsx';
import { invalidatePaths } from '../../lib/query.ts';
import {
  EMPTY_VALUES,
  problemFormData,
  readServerProblems,
  validateProblem,
  type FieldErrors,
  type ProblemValues,
  type TextField as TextFieldName,
} from './problem-form.ts';
import type { AdminProblem } from './types.ts';

const valuesOf = (problem: AdminProblem): ProblemValues => ({
  name: problem.name,
  sname: problem.sname ?? '',
  score: String(problem.score),
  timeLimit: String(problem.timeLimit / 1000),
  memoryLimit: String(problem.memoryLimit),
  case: problem.case ?? '',
});

export function ProblemFormDialog({ problem, onClose }: { problem: AdminProblem | null; onClose(): void }) {
  const creating = problem === null;
  const formId = useId();
  const queryClient = useQueryClient();
  const [values, setValues] = useState<ProblemValues>(() => (problem ? valuesOf(problem) : EMPTY_VALUES));
  const [pdf, setPdf] = useState<File | null>(null);
  const [zip, setZip] = useState<File | null>(null);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [zipProblems, setZipProblems] = useState<string[]>([]);
  const [otherProblems, setOtherProblems] = useState<string[]>([]);
  const [pending, setPending] = useState(false);

  const clear = (field: keyof FieldErrors) => {
    setErrors((current) => {
      if (!current[field]) return current;
      const { [field]: _removed, ...rest } = current;
      return rest;
    });
    if (field === 'zip') setZipProblems([]);
  };

  const text = (field: TextFieldName) => ({
    name: field,
    value: values[field],
    error: errors[field],
    disabled: pending,
    onChange: (event: React.ChangeEvent<HTMLInputElement>) => {
      const value = event.target.value;
      setValues((current) => ({ ...current, [field]: value }));
      clear(field);
    },
  });

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (pending) return;
    const files = { pdf, zip };
    setPending(true);
    const found = await validateProblem(values, files, creating);
    const invalid = Object.keys(found).length > 0;
    // Rendered now, so the first invalid field exists (and is enabled) to take focus.
    flushSync(() => {
      setErrors(found);
      setZipProblems([]);
      setOtherProblems([]);
      if (invalid) setPending(false);
    });
    if (invalid) {
      document.querySelector<HTMLElement>(`#${CSS.escape(formId)} .field-invalid :is(input, select, textarea, button)`)?.focus();
      return;
    }
    const form = problemFormData(values, files);
    const request = creating ? callApi(problemContract.createProblem, { form }) : callApi(problemContract.updateProblem, { params: { problemId: problem.id }, form });
    try {
      await toast.promise(request, {
        loading: pdf || zip ? 'กำลังอัปโหลดและตรวจสอบไฟล์...' : 'กำลังบันทึกโจทย์...',
        success: 'บันทึกโจทย์แล้ว',
        error: (error) =>
          error instanceof ApiError && (error.status === 400 || error.status === 413)
            ? 'บันทึกโจทย์ไม่สำเร็จ กรุณาแก้ไขตามที่แจ้งในฟอร์ม'
            : errorMessage(error, 'บันทึกโจทย์ไม่สำเร็จ กรุณาลองใหม่อีกครั้ง'),
      });
      void invalidatePaths(queryClient, '/problem');
      onClose();
    } catch (error) {
      setPending(false);
      if (error instanceof ApiError && (error.status === 400 || error.status === 413)) {
        const server = readServerProblems(error.status, error.message);
        const prefixed: FieldErrors = {};
        for (const [field, message] of Object.entries(server.fields) as Array<[keyof FieldErrors, string]>) {
          prefixed[field] = error.status === 413 ? message : `เซิร์ฟเวอร์ไม่รับข้อมูลนี้: ${message}`;
        }
        setErrors(prefixed);
        setZipProblems(server.zip);
        setOtherProblems(server.other);
      } else if (error instanceof ApiError) {
        setOtherProblems([errorMessage(error)]);
      }
    }
  };

  return (
    <Dialog
      open
      size="lg"
      title={creating ? 'เพิ่มโจทย์' : `แก้ไขโจทย์ #${problem.id}`}
      onClose={() => {
        if (!pending) onClose();
      }}
      footer={
        <>
          <Button variant="ghost" onClick={onClose} disabled={pending}>
            ยกเลิก
          </Button>
          <Button type="submit" form={formId} variant="primary" loading={pending}>
            {creating ? 'เพิ่มโจทย์' : 'บันทึก'}
          </Button>
        </>
      }
    >
      <form id={formId} className="form admin-problem-form" noValidate onSubmit={(event) => void onSubmit(event)} aria-busy={pending || undefined}>
        {otherProblems.length ? (
          <div className="admin-form-alert" role="alert">
            {otherProblems.map((message, index) => (
              <p key={index}>{message}</p>
            ))}
          </div>
        ) : null}
        <div className="admin-grid">
          <TextField label="ชื่อโจทย์" autoComplete="off" className="admin-span-2" {...text('name')} data-autofocus />
          <TextField label="ชื่อเล่น" autoComplete="off" hint="ชื่อสั้นภาษาอังกฤษ เช่น aplusb" {...text('sname')} />
          <TextField label="คะแนน" inputMode="numeric" autoComplete="off" placeholder="เช่น 100" {...text('score')} />
          <TextField label="เวลา (s)" inputMode="decimal" autoComplete="off" placeholder="เช่น 1 หรือ 0.5" {...text('timeLimit')} />
          <TextField label="หน่วยความจำ (MB)" inputMode="numeric" autoComplete="off" placeholder="เช่น 256" {...text('memoryLimit')} />
          <TextField
            label="จำนวนเคส (ไม่บังคับ)"
            inputMode="numeric"
            autoComplete="off"
            hint="เว้นว่างได้ ระบบนับจากไฟล์เทสต์เคส"
            {...text('case')}
          />
        </div>
        <FileField
          label={creating ? 'โจทย์ (PDF)' : 'โจทย์ (PDF) — ไม่บังคับ'}
          name="pdf"
          accept=".pdf,application/pdf"
          hint={creating ? undefined : 'ไม่เลือกไฟล์ = ใช้ไฟล์เดิม'}
          file={pdf}
          error={errors.pdf}
          disabled={pending}
          onFile={(file) => {
            setPdf(file);
            clear('pdf');
          }}
        />
        <FileField
          label={creating ? 'เทสต์เคส (ZIP)' : 'เทสต์เคส (ZIP) — ไม่บังคับ'}
          name="zip"
          accept=".zip,application/zip,application/x-zip-compressed"
          hint={
            <>
              Testcase Files อยู่ในรูปแบบ 1.in, 1.sol, ...
              {creating ? null : ' (ไม่เลือกไฟล์ = ใช้ไฟล์เดิม)'}
            </>
          }
          file={zip}
          error={errors.zip ?? (zipProblems.length ? 'ไฟล์เทสต์เคสมีปัญหาดังนี้:' : undefined)}
          problems={zipProblems}
          disabled={pending}
          onFile={(file) => {
            setZip(file);
            clear('zip');
          }}
        />
      </form>
    </Dialog>
  );
}
