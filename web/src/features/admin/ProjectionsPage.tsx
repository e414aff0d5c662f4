/**
 * /admin/projection: for operators, how far each projection slot (the read models the pages read) is
 * behind the event log, and whether one stopped on an event. Read-only; refreshed every 5 seconds.
 */
import { useQuery } from '@tanstack/react-query';
import { adminContract, type ProjectionSlot, type ProjectionSlotStatus } from '@otog/schemas/api/admin';
import { Badge, type Tone } from '../../components/ui/Badge.tsx';
import { Button } from '../../components/ui/Button.tsx';
import { errorMessage } from '../../lib/api.ts';
import { formatDateTime } from '../../lib/dates.ts';
import { usePageTitle } from '../../lib/page-title.ts';
import { apiQuery } from '../../lib/query.ts';
import { PlaceholderRows, WideRow } from './list.tsx';

const REFRESH_MS = 5_000;
const COLUMNS = 6;

const STATUS: Record<ProjectionSlotStatus, { label: string; tone: Tone }> = {
  running: { label: 'ทำงานปกติ', tone: 'green' },
  rebuilding: { label: 'กำลังสร้างใหม่', tone: 'blue' },
  faulted: { label: 'หยุดทำงาน (ผิดพลาด)', tone: 'red' },
  retired: { label: 'เลิกใช้แล้ว', tone: 'gray' },
};

const SLOT_STATE: Record<ProjectionSlot['state'], string> = { live: 'ใช้งานอยู่', building: 'กำลังสร้าง', retired: 'เลิกใช้' };

function lag(slot: ProjectionSlot): string {
  if (slot.eventsBehind === null) return '-';
  if (slot.eventsBehind === 0) return 'ตามทันแล้ว';
  const events = `${slot.eventsBehindCapped ? 'อย่างน้อย ' : ''}${slot.eventsBehind.toLocaleString('th-TH')} เหตุการณ์`;
  const seconds = slot.secondsBehind === null ? '' : ` (${slot.secondsBehind.toLocaleString('th-TH', { maximumFractionDigits: 1 })} วินาที)`;
  return `ช้ากว่า ${events}${seconds}`;
}

export function ProjectionsPage() {
  usePageTitle('ระบบจัดการ: สถานะระบบประมวลผล');
  const query = useQuery({ ...apiQuery(adminContract.getProjectionStatus), refetchInterval: REFRESH_MS, staleTime: 0 });
  const status = query.data;
  const faulted = status?.slots.filter((slot) => slot.status === 'faulted').length ?? 0;

  let body;
  if (status === undefined && query.isError) {
    body = (
      <WideRow columns={COLUMNS}>
        <p className="admin-error-text" role="alert">
          โหลดสถานะไม่สำเร็จ: {errorMessage(query.error)}
        </p>
        <Button size="sm" onClick={() => void query.refetch()}>
          ลองใหม่
        </Button>
      </WideRow>
    );
  } else if (status === undefined) {
    body = <PlaceholderRows columns={COLUMNS} rows={6} />;
  } else if (status.slots.length === 0) {
    body = <WideRow columns={COLUMNS}>ยังไม่มีระบบประมวลผล (สร้างเมื่อเซิร์ฟเวอร์เริ่มทำงานครั้งแรก)</WideRow>;
  } else {
    body = status.slots.map((slot) => (
      <tr key={`${slot.projection}-${slot.generation}`} className={slot.status === 'retired' ? 'admin-row-hidden' : undefined}>
        <th scope="row" className="admin-mono">
          {slot.projection}
          {slot.registered ? null : <span className="muted admin-block">(ไม่มีในโค้ดรุ่นนี้)</span>}
        </th>
        <td className="admin-nowrap">
          ชุดที่ {slot.generation} · โค้ดรุ่น {slot.codeVersion}
          <span className="muted admin-block">{SLOT_STATE[slot.state]}</span>
          {slot.manualCutover ? <span className="muted admin-block">รอผู้ดูแลสั่งสลับ (projections cutover)</span> : null}
        </td>
        <td className="admin-mono admin-nowrap">{slot.position}</td>
        <td>{lag(slot)}</td>
        <td>
          <Badge tone={STATUS[slot.status].tone}>{STATUS[slot.status].label}</Badge>
        </td>
        <td className="admin-error-cell">{slot.error ? <code className="admin-error-text">{slot.error}</code> : <span className="muted">-</span>}</td>
      </tr>
    ));
  }

  return (
    <div className="stack">
      <div className="admin-toolbar">
        <h2 className="admin-section-title">สถานะระบบประมวลผล</h2>
        <p className="muted admin-projection-head" aria-live="polite">
          {status ? `ตำแหน่งล่าสุดของบันทึกเหตุการณ์ ${status.head} · ตรวจเมื่อ ${formatDateTime(status.checkedAt)} · อัปเดตทุก 5 วินาที` : '\u00a0'}
        </p>
      </div>
      {faulted > 0 ? (
        <p className="admin-form-alert" role="alert">
          มี {faulted} ระบบหยุดทำงานเพราะประมวลผลเหตุการณ์ไม่ได้ หน้าที่อ่านจากระบบนั้นจะไม่อัปเดตจนกว่าจะแก้ไข (ดูคำสั่ง projections skip / rebuild ของ CLI)
        </p>
      ) : null}
      <div className="table-wrap">
        <table className="table admin-table" aria-busy={query.isFetching || undefined}>
          <caption className="sr-only">ระบบประมวลผลทั้งหมดและความล่าช้าเทียบกับบันทึกเหตุการณ์</caption>
          <thead>
            <tr>
              <th scope="col">ชื่อ</th>
              <th scope="col">รุ่น</th>
              <th scope="col">ตำแหน่ง</th>
              <th scope="col">ความล่าช้า</th>
              <th scope="col">สถานะ</th>
              <th scope="col">ข้อผิดพลาดล่าสุด</th>
            </tr>
          </thead>
          <tbody>{body}</tbody>
        </table>
      </div>
    </div>
  );
}
