/** "Rejudge this problem?": every submission of the problem, contest ones included, is judged again. */
import { useQueryClient } from '@tanstack/react-query';
import { submissionContract } from '@otog/schemas/api/submission';
import { callApi, errorMessage } from '../../lib/api.ts';
import { invalidatePaths } from '../../lib/query.ts';
import { toast } from '../../lib/toast.tsx';
import { ConfirmDialog } from './ConfirmDialog.tsx';

/** "Rejudging 12 submissions of problem 3" → its count. */
function rejudgeMessage(message: string): string {
  const count = /(\d+) submissions?/.exec(message)?.[1];
  return count === undefined ? message : Number(count) === 0 ? 'ข้อนี้ยังไม่มีการส่ง ไม่มีอะไรต้องตรวจใหม่' : `กำลังตรวจใหม่ ${Number(count).toLocaleString('th-TH')} รายการ`;
}

export function RejudgeProblemDialog({ problem, onClose }: { problem: { id: number; name: string }; onClose(): void }) {
  const queryClient = useQueryClient();
  return (
    <ConfirmDialog
      title="ยืนยันการตรวจข้อนี้ใหม่"
      confirmLabel="ตรวจข้อนี้ใหม่"
      onClose={onClose}
      onConfirm={async () => {
        await toast.promise(callApi(submissionContract.rejudgeProblem, { params: { problemId: problem.id } }), {
          loading: 'กำลังสั่งตรวจใหม่...',
          success: ({ message }) => rejudgeMessage(message),
          error: (error) => errorMessage(error, 'สั่งตรวจใหม่ไม่สำเร็จ'),
        });
        void invalidatePaths(queryClient, '/submission');
      }}
    >
      <p>
        ผลตรวจทุกรายการของข้อ <strong>#{problem.id} {problem.name}</strong> (รวมที่ส่งในการแข่งขัน) จะถูกตรวจใหม่ทั้งหมด
      </p>
    </ConfirmDialog>
  );
}
