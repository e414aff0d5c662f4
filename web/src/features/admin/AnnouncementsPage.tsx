/**
 * /admin/announcement: the global announcements (the carousel on the problem page), hidden ones too; with
 * a contestId, one contest's announcements (its announcement page), inside the contest's admin page. Add,
 * show or hide, edit in place, delete. Values are plain text (line breaks kept); a rich-text (Slate) value
 * from OTOG is shown, and edited, as its text.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { ANNOUNCEMENT_VALUE_MAX, announcementContract, type Announcement } from '@otog/schemas/api/announcement';
import { Badge } from '../../components/ui/Badge.tsx';
import { Button } from '../../components/ui/Button.tsx';
import { Empty } from '../../components/ui/Empty.tsx';
import { TextAreaField } from '../../components/ui/Field.tsx';
import { EyeIcon, EyeOffIcon, PencilIcon, PlusIcon, TrashIcon } from '../../components/ui/icons.tsx';
import { callApi, errorMessage } from '../../lib/api.ts';
import { usePageTitle } from '../../lib/page-title.ts';
import { apiQuery } from '../../lib/query.ts';
import { toast } from '../../lib/toast.tsx';
import { ConfirmDialog } from './ConfirmDialog.tsx';
import { invalidatePaths } from '../../lib/query.ts';

/** The text of a value: itself, or the text of a Slate document (an array of element nodes). */
export function announcementText(value: string): string {
  const trimmed = value.trim();
  if (!trimmed.startsWith('[')) return value;
  try {
    const nodes: unknown = JSON.parse(trimmed);
    const isElement = (node: unknown): node is { children: unknown[] } =>
      typeof node === 'object' && node !== null && 'children' in node && Array.isArray(node.children);
    if (!Array.isArray(nodes) || nodes.length === 0 || !nodes.every(isElement)) return value;
    const text = (node: unknown): string => {
      if (typeof node === 'object' && node !== null && 'text' in node && typeof node.text === 'string') return node.text;
      return isElement(node) ? node.children.map(text).join('') : '';
    };
    return nodes.map(text).join('\n');
  } catch {
    return value;
  }
}

function checkValue(value: string): string | undefined {
  if (!value.trim()) return 'กรุณากรอกข้อความประกาศ';
  if (value.length > ANNOUNCEMENT_VALUE_MAX) return `ประกาศยาวได้ไม่เกิน ${ANNOUNCEMENT_VALUE_MAX.toLocaleString('th-TH')} ตัวอักษร`;
  return undefined;
}

// A contest's detail counts its announcements.
const refresh = (queryClient: ReturnType<typeof useQueryClient>) => invalidatePaths(queryClient, '/announcement', '/contest');

/** Inside a contest's page the headings sit one level lower. */
const headings = (contestId: number | undefined): { title: 'h2' | 'h3'; item: 'h3' | 'h4' } =>
  contestId === undefined ? { title: 'h2', item: 'h3' } : { title: 'h3', item: 'h4' };

function NewAnnouncement({ contestId }: { contestId: number | undefined }) {
  const queryClient = useQueryClient();
  const [value, setValue] = useState('');
  const [showNow, setShowNow] = useState(false);
  const [error, setError] = useState<string>();
  const [pending, setPending] = useState(false);
  const showId = useId();

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const problem = checkValue(value);
    setError(problem);
    if (problem || pending) return;
    setPending(true);
    const create = async () => {
      const created = await callApi(announcementContract.createAnnouncement, { body: { value }, query: { contestId } });
      if (showNow) await callApi(announcementContract.showAnnouncement, { params: { announcementId: created.id }, body: { show: true } });
    };
    try {
      await toast.promise(create(), {
        loading: 'กำลังเพิ่มประกาศ...',
        success: showNow ? 'เพิ่มและแสดงประกาศแล้ว' : 'เพิ่มประกาศแล้ว (ยังซ่อนอยู่)',
        error: (failure) => errorMessage(failure, 'เพิ่มประกาศไม่สำเร็จ'),
      });
      setValue('');
      setShowNow(false);
    } catch {
      // The toast said why; the text stays for another try.
    } finally {
      setPending(false);
      void refresh(queryClient);
    }
  };

  const Title = headings(contestId).title;
  return (
    <form className="card form" noValidate onSubmit={(event) => void onSubmit(event)}>
      <Title className="card-title">เพิ่มประกาศ</Title>
      <TextAreaField
        label="ข้อความประกาศ"
        name="value"
        rows={3}
        value={value}
        error={error}
        disabled={pending}
        className="admin-announcement-input"
        hint={`ขึ้นบรรทัดใหม่ได้ ประกาศจะแสดง${contestId === undefined ? 'ในหน้าโจทย์' : 'ในหน้าประกาศของการแข่งขัน'}เมื่อเปิดแสดง`}
        onChange={(event) => {
          setValue(event.target.value);
          setError(undefined);
        }}
      />
      <div className="row-between">
        <label htmlFor={showId} className="checkbox">
          <input id={showId} type="checkbox" checked={showNow} disabled={pending} onChange={(event) => setShowNow(event.target.checked)} />
          แสดงทันที
        </label>
        <Button type="submit" variant="primary" loading={pending} icon={<PlusIcon width={16} height={16} />}>
          เพิ่มประกาศ
        </Button>
      </div>
    </form>
  );
}

function AnnouncementItem({ announcement, onDelete, contestId }: { announcement: Announcement; onDelete(): void; contestId: number | undefined }) {
  const queryClient = useQueryClient();
  const text = announcementText(announcement.value);
  const [draft, setDraft] = useState<string | null>(null);
  const [error, setError] = useState<string>();
  const titleId = useId();

  const toggle = useMutation({
    mutationFn: (show: boolean) =>
      toast.promise(callApi(announcementContract.showAnnouncement, { params: { announcementId: announcement.id }, body: { show } }), {
        loading: show ? 'กำลังแสดงประกาศ...' : 'กำลังซ่อนประกาศ...',
        success: show ? 'แสดงประกาศแล้ว' : 'ซ่อนประกาศแล้ว',
        error: (failure) => errorMessage(failure, 'เปลี่ยนการแสดงผลไม่สำเร็จ'),
      }),
    onSettled: () => refresh(queryClient),
  });
  const save = useMutation({
    mutationFn: (value: string) =>
      toast.promise(callApi(announcementContract.updateAnnouncement, { params: { announcementId: announcement.id }, body: { value } }), {
        loading: 'กำลังบันทึกประกาศ...',
        success: 'บันทึกประกาศแล้ว',
        error: (failure) => errorMessage(failure, 'บันทึกประกาศไม่สำเร็จ'),
      }),
    onSuccess: () => setDraft(null),
    onSettled: () => refresh(queryClient),
  });

  const shown = toggle.isPending && toggle.variables !== undefined ? toggle.variables : announcement.show;
  const onSave = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (draft === null) return;
    const problem = checkValue(draft);
    setError(problem);
    if (!problem) save.mutate(draft);
  };

  const Title = headings(contestId).item;
  return (
    <article className={`card admin-announcement${announcement.show ? '' : ' admin-announcement-hidden'}`} aria-labelledby={titleId}>
      <header className="row-between">
        <Title id={titleId} className="admin-announcement-title">
          ประกาศ #{announcement.id}{' '}
          {announcement.show ? <Badge tone="green">แสดงอยู่</Badge> : <Badge tone="gray">ซ่อนอยู่</Badge>}
        </Title>
        <div className="row">
          <Button
            size="sm"
            variant="outline"
            icon={shown ? <EyeOffIcon width={16} height={16} /> : <EyeIcon width={16} height={16} />}
            disabled={toggle.isPending}
            onClick={() => toggle.mutate(!announcement.show)}
          >
            {shown ? 'ซ่อน' : 'แสดง'}
          </Button>
          {draft === null ? (
            <Button
              size="sm"
              variant="outline"
              icon={<PencilIcon width={16} height={16} />}
              onClick={() => {
                setDraft(text);
                setError(undefined);
              }}
            >
              แก้ไข
            </Button>
          ) : null}
          <Button size="sm" variant="outline" className="admin-danger-text" icon={<TrashIcon width={16} height={16} />} onClick={onDelete}>
            ลบ
          </Button>
        </div>
      </header>
      {draft === null ? (
        <p className="admin-announcement-text">{text || <span className="muted">(ว่าง)</span>}</p>
      ) : (
        <form className="form" noValidate onSubmit={onSave}>
          <TextAreaField
            label={`แก้ไขประกาศ #${announcement.id}`}
            rows={Math.min(12, Math.max(3, draft.split('\n').length + 1))}
            value={draft}
            error={error}
            disabled={save.isPending}
            className="admin-announcement-input"
            autoFocus
            onChange={(event) => {
              setDraft(event.target.value);
              setError(undefined);
            }}
            onKeyDown={(event) => {
              if (event.key === 'Escape') {
                // Leave the editor, not a dialog: nothing else to close here.
                event.preventDefault();
                setDraft(null);
              }
            }}
          />
          <div className="row admin-end">
            <Button variant="ghost" disabled={save.isPending} onClick={() => setDraft(null)}>
              ยกเลิก
            </Button>
            <Button type="submit" variant="primary" loading={save.isPending}>
              บันทึก
            </Button>
          </div>
        </form>
      )}
    </article>
  );
}

/** The /admin/announcement tab. */
export function AnnouncementsPage() {
  usePageTitle('ระบบจัดการ: ประกาศ');
  return <Announcements />;
}

/** The global announcements, or a contest's (inside its admin page, which names the tab). */
export function Announcements({ contestId }: { contestId?: number }) {
  const queryClient = useQueryClient();
  // Without `show`, an admin gets the hidden announcements too.
  const query = useQuery(apiQuery(announcementContract.getAnnouncements, contestId === undefined ? {} : { query: { contestId } }));
  const [deleting, setDeleting] = useState<Announcement | null>(null);

  const Title = headings(contestId).title;
  let list;
  if (query.data === undefined && query.isError) {
    list = (
      <Empty tone="error">
        <p>โหลดประกาศไม่สำเร็จ: {errorMessage(query.error)}</p>
        <Button size="sm" onClick={() => void query.refetch()}>
          ลองใหม่
        </Button>
      </Empty>
    );
  } else if (query.data === undefined) {
    list = (
      <div className="stack" aria-hidden>
        {[0, 1].map((key) => (
          <div key={key} className="card admin-announcement-placeholder">
            <span className="admin-placeholder" />
          </div>
        ))}
      </div>
    );
  } else if (query.data.length === 0) {
    list = <Empty>ยังไม่มีประกาศ</Empty>;
  } else {
    list = (
      <div className="stack">
        {query.data.map((announcement) => (
          <AnnouncementItem key={announcement.id} announcement={announcement} contestId={contestId} onDelete={() => setDeleting(announcement)} />
        ))}
      </div>
    );
  }

  return (
    <div className="stack">
      <NewAnnouncement contestId={contestId} />
      <Title className="admin-section-title">ประกาศทั้งหมด{query.data ? ` (${query.data.length})` : ''}</Title>
      {list}
      {deleting ? (
        <ConfirmDialog
          title="ลบประกาศ"
          confirmLabel="ลบประกาศ"
          danger
          onClose={() => setDeleting(null)}
          onConfirm={async () => {
            await toast.promise(callApi(announcementContract.deleteAnnouncement, { params: { announcementId: deleting.id } }), {
              loading: 'กำลังลบประกาศ...',
              success: 'ลบประกาศแล้ว',
              error: (failure) => errorMessage(failure, 'ลบประกาศไม่สำเร็จ'),
            });
            void refresh(queryClient);
          }}
        >
          <p>ต้องการลบประกาศ #{deleting.id} ใช่หรือไม่? ย้อนกลับไม่ได้</p>
          <blockquote className="admin-quote">{announcementText(deleting.value).slice(0, 300)}</blockquote>
        </ConfirmDialog>
      ) : null}
    </div>
  );
}
