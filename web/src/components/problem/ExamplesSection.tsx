/**
 * "ตัวอย่าง": the examples under the statement (Input | Output, monospace, a copy button per cell). Hidden
 * for non-admins when there are none; admins edit them in place (rows of textareas, add a row after,
 * delete a row, ยกเลิก / บันทึก through PUT /problem/{id}/examples).
 */
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { problemContract, PROBLEM_EXAMPLES_MAX, type Problem, type ProblemExample } from '@otog/schemas/api/problem';
import { Button, IconButton } from '../ui/Button.tsx';
import { CopyIcon, PencilIcon, PlusIcon, TrashIcon } from '../ui/icons.tsx';
import { callApi } from '../../lib/api.ts';
import { apiKey } from '../../lib/query.ts';
import { toast } from '../../lib/toast.tsx';
import { copyText } from '../../lib/clipboard.ts';

function CopyButton({ text, label }: { text: string; label: string }) {
  return (
    <IconButton
      label={label}
      size="sm"
      className="example-copy"
      onClick={() =>
        void copyText(text).then(
          () => toast.success('คัดลอกไปยังคลิปบอร์ดแล้ว'),
          () => toast.error('คัดลอกไม่สำเร็จ'),
        )
      }
    >
      <CopyIcon width={15} height={15} />
    </IconButton>
  );
}

function ExampleCell({ text, label }: { text: string; label: string }) {
  return (
    <td className="example-cell">
      <pre className="example-text">{text}</pre>
      <CopyButton text={text} label={label} />
    </td>
  );
}

/** An example being edited, with a key that stays with it as rows are added and removed. */
type EditRow = ProblemExample & { readonly key: number };
let nextKey = 1;
const editRow = (example: ProblemExample = { input: '', output: '' }): EditRow => ({ input: example.input, output: example.output, key: nextKey++ });

function ExamplesEditor({ problem, initial, onDone }: { problem: Problem; initial: ProblemExample[]; onDone(): void }) {
  const queryClient = useQueryClient();
  const [rows, setRows] = useState<EditRow[]>(() => (initial.length ? initial.map((row) => editRow(row)) : [editRow()]));
  const [saving, setSaving] = useState(false);

  const update = (index: number, field: keyof ProblemExample, value: string) =>
    setRows((current) => current.map((row, at) => (at === index ? { ...row, [field]: value } : row)));
  const insertAfter = (index: number) => setRows((current) => [...current.slice(0, index + 1), editRow(), ...current.slice(index + 1)]);
  const remove = (index: number) => setRows((current) => current.filter((_, at) => at !== index));

  const save = async () => {
    setSaving(true);
    try {
      const saved = await toast.promise(callApi(problemContract.setExamples, { params: { problemId: problem.id }, body: rows.map(({ input, output }) => ({ input, output })) }), {
        loading: 'กำลังบันทึก...',
        success: 'บันทึกสำเร็จแล้ว',
        error: 'บันทึกไม่สำเร็จ กรุณาลองใหม่อีกครั้ง',
      });
      queryClient.setQueryData<Problem>(apiKey(problemContract.getProblem, { params: { problemId: problem.id } }), (current) =>
        current ? { ...current, examples: saved.examples } : current,
      );
      onDone();
    } catch {
      // The toast said why; the edits stay.
    } finally {
      setSaving(false);
    }
  };

  return (
    <div className="stack">
      <div className="table-wrap">
        <table className="table examples-table examples-editing">
          <thead>
            <tr>
              <th scope="col">Input</th>
              <th scope="col">Output</th>
              <th scope="col">
                <span className="sr-only">จัดการแถว</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row, index) => (
              <tr key={row.key}>
                <td>
                  <textarea className="input textarea" aria-label={`Input ตัวอย่างที่ ${index + 1}`} value={row.input} onChange={(event) => update(index, 'input', event.target.value)} />
                </td>
                <td>
                  <textarea className="input textarea" aria-label={`Output ตัวอย่างที่ ${index + 1}`} value={row.output} onChange={(event) => update(index, 'output', event.target.value)} />
                </td>
                <td className="example-row-actions">
                  <IconButton label={`เพิ่มแถวหลังตัวอย่างที่ ${index + 1}`} size="sm" disabled={rows.length >= PROBLEM_EXAMPLES_MAX} onClick={() => insertAfter(index)}>
                    <PlusIcon width={15} height={15} />
                  </IconButton>
                  <IconButton label={`ลบตัวอย่างที่ ${index + 1}`} size="sm" onClick={() => remove(index)}>
                    <TrashIcon width={15} height={15} />
                  </IconButton>
                </td>
              </tr>
            ))}
            {rows.length === 0 ? (
              <tr>
                <td colSpan={3} className="table-message">
                  <Button size="sm" icon={<PlusIcon width={15} height={15} />} onClick={() => setRows([editRow()])}>
                    เพิ่มตัวอย่าง
                  </Button>
                </td>
              </tr>
            ) : null}
          </tbody>
        </table>
      </div>
      <div className="row examples-actions">
        <Button variant="ghost" onClick={onDone} disabled={saving}>
          ยกเลิก
        </Button>
        <Button variant="primary" onClick={() => void save()} loading={saving}>
          บันทึก
        </Button>
      </div>
    </div>
  );
}

export function ExamplesSection({ problem, isAdmin }: { problem: Problem; isAdmin: boolean }) {
  const [editing, setEditing] = useState(false);
  const examples = problem.examples ?? [];
  if (!isAdmin && examples.length === 0) return null;
  return (
    <section className="card problem-section" aria-labelledby="examples-title">
      <div className="row-between section-head">
        <h2 id="examples-title" className="card-title">
          ตัวอย่าง
        </h2>
        {isAdmin && !editing ? (
          <Button size="sm" variant="outline" icon={<PencilIcon width={14} height={14} />} onClick={() => setEditing(true)}>
            แก้ไขตัวอย่าง
          </Button>
        ) : null}
      </div>
      {editing ? (
        <ExamplesEditor problem={problem} initial={examples} onDone={() => setEditing(false)} />
      ) : examples.length === 0 ? (
        <p className="muted">ยังไม่มีตัวอย่าง</p>
      ) : (
        <div className="table-wrap">
          <table className="table examples-table">
            <thead>
              <tr>
                <th scope="col">Input</th>
                <th scope="col">Output</th>
              </tr>
            </thead>
            <tbody>
              {examples.map((example, index) => (
                <tr key={index}>
                  <ExampleCell text={example.input} label={`คัดลอก Input ตัวอย่างที่ ${index + 1}`} />
                  <ExampleCell text={example.output} label={`คัดลอก Output ตัวอย่างที่ ${index + 1}`} />
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
