/** Deleting a contest, after naming it: its problem list, participants, scores and submissions go with it. */
import { useQueryClient } from '@tanstack/react-query';
import { contestContract } from '@otog/schemas/api/contest';
import { callApi, errorMessage } from '../../lib/api.ts';
import { invalidatePaths } from '../../lib/query.ts';
import { toast } from '../../lib/toast.tsx';
import { ConfirmDialog } from './ConfirmDialog.tsx';

export function DeleteContestDialog({ contest, onClose, onDeleted }: { contest: { id: number; name: string }; onClose(): void; onDeleted?(): void }) {
  const queryClient = useQueryClient();
  return (
    <ConfirmDialog
      title="ลบการแข่งขัน"
      confirmLabel="ลบการแข่งขัน"
      danger
      onClose={onClose}
      onConfirm={async () => {
        await toast.promise(callApi(contestContract.deleteContest, { params: { contestId: contest.id } }), {
          loading: 'กำลังลบการแข่งขัน...',
          success: `ลบการแข่งขัน ${contest.name} แล้ว`,
          error: (error) => errorMessage(error, 'ลบการแข่งขันไม่สำเร็จ'),
        });
        onDeleted?.();
        void invalidatePaths(queryClient, '/contest', '/submission', '/announcement');
      }}
    >
      <p>
        ต้องการลบการแข่งขัน <strong>#{contest.id} {contest.name}</strong> ใช่หรือไม่? โจทย์ที่เพิ่มไว้จะถูกนำออก
        ผู้เข้าแข่งขัน คะแนน และ<strong>ผลตรวจทุกรายการที่ส่งในการแข่งขันนี้จะถูกลบไปด้วย</strong> และย้อนกลับไม่ได้
      </p>
    </ConfirmDialog>
  );
}
