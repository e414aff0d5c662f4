/**
 * Add or edit a contest (POST /contest or PUT /contest/:id). Checked in Thai before sending; on a 400 the
 * server's detail is shown at its field. Editing keeps the contest's home-page text (announce is not sent).
 */
import { useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { flushSync } from 'react-dom';
import { contestContract } from '@otog/schemas/api/contest';
import { CONTEST_MODES, GRADING_MODES, SCOREBOARD_POLICIES } from '@otog/schemas/common/contest';
import { Button } from '../../components/ui/Button.tsx';
import { Dialog } from '../../components/ui/Dialog.tsx';
import { SelectField, TextField } from '../../components/ui/Field.tsx';
import { ApiError, callApi, errorMessage } from '../../lib/api.ts';
import { invalidatePaths } from '../../lib/query.ts';
import { toast } from '../../lib/toast.tsx';
import {
  checkContest,
  CONTEST_MODE_LABELS,
  contestValues,
  GRADING_MODE_LABELS,
  newContestValues,
  readServerErrors,
  SCOREBOARD_POLICY_LABELS,
  type ContestErrors,
  type ContestField,
  type ContestValues,
} from './contest-form.ts';
import { DateTimeField } from './DateTimeField.tsx';
import type { AdminContest } from './types.ts';

export function ContestFormDialog({ contest, onClose }: { contest: AdminContest | null; onClose(): void }) {
  const creating = contest === null;
  const formId = useId();
  const queryClient = useQueryClient();
  const [values, setValues] = useState<ContestValues>(() => (contest ? contestValues(contest) : newContestValues()));
  const [errors, setErrors] = useState<ContestErrors>({});
  const [other, setOther] = useState<string[]>([]);
  const [pending, setPending] = useState(false);

  const set = <K extends ContestField>(field: K, value: ContestValues[K]) => {
    setValues((current) => ({ ...current, [field]: value }));
    setErrors(({ [field]: _removed, ...rest }) => rest);
  };
  const select = <K extends 'gradingMode' | 'mode' | 'scoreboardPolicy'>(field: K) => ({
    name: field,
    value: values[field],
    error: errors[field],
    disabled: pending,
    onChange: (event: React.ChangeEvent<HTMLSelectElement>) => set(field, event.target.value as ContestValues[K]),
  });

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (pending) return;
    const { errors: found, body } = checkContest(values);
    flushSync(() => {
      setErrors(found);
      setOther([]);
    });
    if (!body) {
      document.querySelector<HTMLElement>(`#${CSS.escape(formId)} .field-invalid :is(input, select, textarea)`)?.focus();
      return;
    }
    setPending(true);
    const request = creating ? callApi(contestContract.createContest, { body }) : callApi(contestContract.updateContest, { params: { contestId: contest.id }, body });
    try {
      await toast.promise(request, {
        loading: 'กำลังบันทึกการแข่งขัน...',
        success: creating ? `เพิ่มการแข่งขัน ${body.name} แล้ว` : 'บันทึกการแข่งขันแล้ว',
        error: (error) =>
          error instanceof ApiError && error.status === 400 ? 'บันทึกไม่สำเร็จ กรุณาแก้ไขตามที่แจ้งในฟอร์ม' : errorMessage(error, 'บันทึกการแข่งขันไม่สำเร็จ'),
      });
      void invalidatePaths(queryClient, '/contest');
      onClose();
    } catch (error) {
      setPending(false);
      if (error instanceof ApiError && error.status === 400) {
        const server = readServerErrors(error.message);
        setErrors(server.fields);
        setOther(server.other);
      } else if (error instanceof ApiError) {
        setOther([errorMessage(error)]);
      }
    }
  };

  return (
    <Dialog
      open
      size="lg"
      title={creating ? 'เพิ่มการแข่งขัน' : `แก้ไขการแข่งขัน #${contest.id}`}
      onClose={() => {
        if (!pending) onClose();
      }}
      footer={
        <>
          <Button variant="ghost" onClick={onClose} disabled={pending}>
            ยกเลิก
          </Button>
          <Button type="submit" form={formId} variant="primary" loading={pending}>
            {creating ? 'เพิ่มการแข่งขัน' : 'บันทึก'}
          </Button>
        </>
      }
    >
      <form id={formId} className="form" noValidate onSubmit={(event) => void onSubmit(event)} aria-busy={pending || undefined}>
        {other.length ? (
          <div className="admin-form-alert" role="alert">
            {other.map((message, index) => (
              <p key={index}>{message}</p>
            ))}
          </div>
        ) : null}
        <div className="admin-grid admin-grid-3">
          <TextField
            label="ชื่อการแข่งขัน"
            name="name"
            autoComplete="off"
            value={values.name}
            error={errors.name}
            disabled={pending}
            onChange={(event) => set('name', event.target.value)}
            data-autofocus
          />
          <SelectField label="โหมด" hint="วิธีคิดคะแนนของแต่ละข้อ" {...select('gradingMode')}>
            {GRADING_MODES.map((mode) => (
              <option key={mode} value={mode}>
                {GRADING_MODE_LABELS[mode]}
              </option>
            ))}
          </SelectField>
          <SelectField label="เรท" hint="Rated: เปลี่ยนเรตติ้งเมื่อจบการแข่งขัน" {...select('mode')}>
            {CONTEST_MODES.map((mode) => (
              <option key={mode} value={mode}>
                {CONTEST_MODE_LABELS[mode]}
              </option>
            ))}
          </SelectField>
          <SelectField label="ดูอันดับ" hint="ผู้เข้าแข่งขันดูกระดานคะแนนได้เมื่อใด" {...select('scoreboardPolicy')}>
            {SCOREBOARD_POLICIES.map((policy) => (
              <option key={policy} value={policy}>
                {SCOREBOARD_POLICY_LABELS[policy]}
              </option>
            ))}
          </SelectField>
        </div>
        <div className="admin-grid">
          <DateTimeField label="เวลาเริ่ม" value={values.timeStart} error={errors.timeStart} disabled={pending} onChange={(value) => set('timeStart', value)} />
          <DateTimeField label="เวลาจบ" value={values.timeEnd} error={errors.timeEnd} disabled={pending} onChange={(value) => set('timeEnd', value)} />
        </div>
        <DateTimeField
          label="แช่แข็งกระดานคะแนนตั้งแต่ (ไม่บังคับ)"
          optional
          hint="ตั้งแต่เวลานี้ ผู้เข้าแข่งขันเห็นกระดานคะแนนตามที่เป็นอยู่ ณ ตอนนั้น จนกว่าผู้ดูแลจะเปิดเผย ต้องอยู่ระหว่างเวลาเริ่มและเวลาจบ"
          value={values.freezeAt}
          error={errors.freezeAt}
          disabled={pending}
          onChange={(value) => set('freezeAt', value)}
        />
      </form>
    </Dialog>
  );
}
