/**
 * /user/{id}: the show name, the 320 px photo, the rating in its band's colour, the rating graph and the
 * rated contests (ประวัติการแข่งขัน), then the user's submissions ("ผลตรวจ"). The owner (or an admin) may
 * upload a new photo and change the show name here.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useId, useMemo, useState, type ChangeEvent, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import { submissionContract } from '@otog/schemas/api/submission';
import { AVATAR_MAX_BYTES, userContract } from '@otog/schemas/api/user';
import { SubmissionTable, useSubmissionPages } from '../../components/submission/SubmissionTable.tsx';
import { Button } from '../../components/ui/Button.tsx';
import { Empty } from '../../components/ui/Empty.tsx';
import { TextField } from '../../components/ui/Field.tsx';
import { UploadIcon } from '../../components/ui/icons.tsx';
import { useAvatarReplaced, UserAvatar } from '../../components/UserAvatar.tsx';
import { ApiError, callApi, errorMessage, renewSession } from '../../lib/api.ts';
import { formatDate } from '../../lib/dates.ts';
import { formatRatingChange, ratingBand, withRatingChanges } from '../../lib/rating.ts';
import { usePageTitle } from '../../lib/page-title.ts';
import { apiKey, apiQuery, invalidatePaths } from '../../lib/query.ts';
import { useSession } from '../../lib/session.tsx';
import { toast } from '../../lib/toast.tsx';
import './users.css';

// The graph is drawn only for users with rated contests: its code waits until one is shown.
const RatingGraph = lazy(() => import('./RatingGraph.tsx'));

const SHOW_NAME_MAX = 255;
const AVATAR_EXTENSIONS = ['jpg', 'jpeg', 'png', 'webp'] as const;
const AVATAR_TYPES = ['image/jpeg', 'image/png', 'image/webp'];

const parseId = (raw: string | undefined) => (raw && /^[1-9][0-9]{0,9}$/.test(raw) && Number(raw) <= 2_147_483_647 ? Number(raw) : null);

/** Why a photo cannot be uploaded, in Thai; undefined when it can. */
export function avatarProblem(file: File): string | undefined {
  const extension = file.name.split('.').pop()?.toLowerCase() ?? '';
  if (!(AVATAR_EXTENSIONS as readonly string[]).includes(extension) || (file.type !== '' && !AVATAR_TYPES.includes(file.type))) {
    return 'รองรับเฉพาะไฟล์รูป .jpg .jpeg .png หรือ .webp';
  }
  if (file.size === 0) return 'ไฟล์นี้ว่างเปล่า';
  if (file.size > AVATAR_MAX_BYTES) return 'ไฟล์รูปต้องมีขนาดไม่เกิน 5 MB';
  return undefined;
}

/** Why a show name cannot be saved, in Thai; undefined when it can. */
export function showNameProblem(showName: string): string | undefined {
  if (showName.trim() === '') return 'กรุณากรอกชื่อที่แสดง';
  if (showName.trim().length > SHOW_NAME_MAX) return `ชื่อที่แสดงต้องยาวไม่เกิน ${SHOW_NAME_MAX} ตัวอักษร`;
  return undefined;
}

export default function ProfilePage() {
  const userId = parseId(useParams().userId);
  if (userId === null) return <NotFound />;
  return <Profile key={userId} userId={userId} />;
}

function NotFound() {
  usePageTitle('ไม่พบผู้ใช้');
  return (
    <section className="page">
      <h1 className="page-title">โปรไฟล์</h1>
      <Empty tone="error">ไม่พบผู้ใช้นี้</Empty>
    </section>
  );
}

function Profile({ userId }: { userId: number }) {
  const { user, isAdmin } = useSession();
  const profile = useQuery(apiQuery(userContract.profile, { params: { userId } }));
  usePageTitle(profile.data?.showName ?? 'โปรไฟล์');

  if (profile.error instanceof ApiError && (profile.error.status === 404 || profile.error.status === 400)) return <NotFound />;
  if (profile.error) {
    return (
      <section className="page">
        <h1 className="page-title">โปรไฟล์</h1>
        <Empty tone="error">{errorMessage(profile.error)}</Empty>
      </section>
    );
  }
  const data = profile.data;
  const canEdit = user !== null && (isAdmin || user.id === userId);
  // OTOG shows an admin's submissions to admins only.
  const showSubmissions = data !== undefined && (data.role !== 'admin' || isAdmin);

  return (
    <section className="page">
      <h1 className="page-title profile-name">{data ? data.showName : <span className="profile-title-placeholder" aria-label="กำลังโหลด" />}</h1>
      <div className="profile-top">
        <div className="profile-avatar">
          {data ? (
            <UserAvatar userId={userId} name={data.showName} size="lg" />
          ) : (
            <span className="profile-avatar-placeholder" aria-hidden />
          )}
        </div>
        <div className="stack profile-side">
          {data ? <RatingValue rating={data.rating} /> : null}
          {data ? (
            <dl className="profile-facts">
              {isAdmin ? (
                <div>
                  <dt>ชื่อผู้ใช้</dt>
                  <dd className="mono">{data.username}</dd>
                </div>
              ) : null}
              {data.creationDate ? (
                <div>
                  <dt>สมัครเมื่อ</dt>
                  <dd>{formatDate(data.creationDate)}</dd>
                </div>
              ) : null}
            </dl>
          ) : null}
          {data && canEdit ? (
            <div className="card stack profile-settings">
              <h2 className="card-title">ตั้งค่าโปรไฟล์</h2>
              <AvatarUpload userId={userId} />
              <ShowNameForm userId={userId} current={data.showName} />
            </div>
          ) : null}
        </div>
      </div>
      {data ? <RatingHistory userId={userId} /> : null}
      {showSubmissions ? <UserSubmissions userId={userId} /> : null}
    </section>
  );
}

/** The rating, big and in its band's colour; "ยังไม่มีเรตติ้ง" before the first rated contest. */
function RatingValue({ rating }: { rating: number | null }) {
  const band = ratingBand(rating);
  return (
    <div className="profile-rating">
      <span className="profile-rating-label">เรตติ้ง</span>
      {band === null ? (
        <span className="profile-rating-none">ยังไม่มีเรตติ้ง</span>
      ) : (
        <span className={`profile-rating-value rating-band-${band}`} data-band={band}>
          {rating}
        </span>
      )}
    </div>
  );
}

/** The rating graph and the table of rated contests (newest first), from the same rating history. */
function RatingHistory({ userId }: { userId: number }) {
  const history = useQuery(apiQuery(userContract.ratingHistory, { params: { userId } }));
  const rows = useMemo(() => withRatingChanges(history.data ?? []), [history.data]);
  const graphTitle = useId();
  return (
    <section className="stack" aria-labelledby="profile-contests">
      <h2 id="profile-contests" className="profile-section-title">
        ประวัติการแข่งขัน
      </h2>
      {history.isPending ? (
        <div className="rating-graph-placeholder" aria-hidden />
      ) : history.isError ? (
        <Empty tone="error">{errorMessage(history.error)}</Empty>
      ) : rows.length === 0 ? (
        <Empty>ยังไม่เคยแข่งขันแบบจัดอันดับ</Empty>
      ) : (
        <>
          <figure className="card rating-graph-card">
            <figcaption id={graphTitle} className="rating-graph-title">
              กราฟเรตติ้งหลังการแข่งขันแต่ละครั้ง <span className="sr-only">(ตัวเลขเดียวกันอยู่ในตารางประวัติการแข่งขัน)</span>
            </figcaption>
            <Suspense fallback={<div className="rating-graph-placeholder" aria-hidden />}>
              <RatingGraph points={rows} labelledBy={graphTitle} />
            </Suspense>
          </figure>
          <div className="table-wrap">
            <table className="table contest-history" aria-label="ประวัติการแข่งขัน">
              <thead>
                <tr>
                  <th scope="col">การแข่งขัน</th>
                  <th scope="col" className="num">
                    อันดับ
                  </th>
                  <th scope="col" className="num">
                    เรตติ้ง
                  </th>
                  <th scope="col" className="num">
                    เปลี่ยนแปลง
                  </th>
                </tr>
              </thead>
              <tbody>
                {rows.toReversed().map((row) => (
                  <tr key={row.contestId} data-contest-id={row.contestId}>
                    <td className="contest-history-name">
                      <Link to={`/contest/${row.contestId}`}>{row.name}</Link>
                      <time className="contest-history-date" dateTime={row.timeStart}>
                        {formatDate(row.timeStart)}
                      </time>
                    </td>
                    <td className="num">{row.rank}</td>
                    <td className="num">
                      <span className={`rating-number rating-band-${ratingBand(row.rating)}`}>{row.rating}</span>
                    </td>
                    <td className={`num rating-change ${row.change > 0 ? 'rating-up' : row.change < 0 ? 'rating-down' : ''}`}>{formatRatingChange(row.change)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
    </section>
  );
}

function AvatarUpload({ userId }: { userId: number }) {
  const inputId = useId();
  const avatarReplaced = useAvatarReplaced(userId);
  const [error, setError] = useState<string | undefined>();
  const [uploading, setUploading] = useState(false);

  const onChange = async (event: ChangeEvent<HTMLInputElement>) => {
    const input = event.currentTarget;
    const file = input.files?.[0];
    input.value = '';
    if (!file) return;
    const problem = avatarProblem(file);
    setError(problem);
    if (problem) return;
    const form = new FormData();
    form.append('file', file, file.name);
    setUploading(true);
    try {
      await toast.promise(callApi(userContract.uploadAvatar, { params: { userId }, form }), {
        loading: 'กำลังอัปโหลดรูป...',
        success: 'อัปโหลดรูปสำเร็จ!',
        error: (failure) => (failure instanceof ApiError && failure.status === 400 ? 'อัปโหลดไม่สำเร็จ: ไฟล์นี้ไม่ใช่รูปที่รองรับ' : errorMessage(failure, 'อัปโหลดรูปไม่สำเร็จ')),
      });
      avatarReplaced();
    } catch {
      // The toast said why.
    } finally {
      setUploading(false);
    }
  };

  return (
    <div className={`field${error ? ' field-invalid' : ''}`}>
      <span className="field-label" id={`${inputId}-label`}>
        รูปโปรไฟล์
      </span>
      <div className="row">
        <input
          id={inputId}
          type="file"
          className="file-input"
          accept=".jpg,.jpeg,.png,.webp,image/jpeg,image/png,image/webp"
          disabled={uploading}
          aria-labelledby={`${inputId}-label ${inputId}-button`}
          aria-describedby={error ? `${inputId}-error` : `${inputId}-hint`}
          onChange={(event) => void onChange(event)}
        />
        <label htmlFor={inputId} id={`${inputId}-button`} className={`btn btn-secondary btn-md file-button${uploading ? ' is-disabled' : ''}`}>
          {uploading ? <span className="spinner spinner-sm" aria-hidden /> : <UploadIcon width={16} height={16} />}
          อัปโหลดรูป
        </label>
      </div>
      {error ? (
        <p id={`${inputId}-error`} className="field-error" role="alert">
          {error}
        </p>
      ) : (
        <p id={`${inputId}-hint`} className="field-hint">
          ไฟล์ .jpg .jpeg .png หรือ .webp ขนาดไม่เกิน 5 MB
        </p>
      )}
    </div>
  );
}

function ShowNameForm({ userId, current }: { userId: number; current: string }) {
  const queryClient = useQueryClient();
  const { user } = useSession();
  const [value, setValue] = useState(current);
  const [error, setError] = useState<string | undefined>();
  const [saving, setSaving] = useState(false);

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const problem = showNameProblem(value);
    setError(problem);
    if (problem) return;
    setSaving(true);
    try {
      const { showName } = await toast.promise(callApi(userContract.updateShowName, { params: { userId }, body: { showName: value.trim() } }), {
        loading: 'กำลังบันทึกชื่อ...',
        success: 'เปลี่ยนชื่อที่แสดงแล้ว',
        error: (failure) => errorMessage(failure, 'เปลี่ยนชื่อไม่สำเร็จ'),
      });
      setValue(showName);
      // The access token carries the name the top bar shows: a fresh one has the new name.
      if (user?.id === userId) void renewSession();
      void queryClient.invalidateQueries({ queryKey: apiKey(userContract.profile) });
      void invalidatePaths(queryClient, '/submission');
    } catch {
      // The toast said why.
    } finally {
      setSaving(false);
    }
  };

  return (
    <form className="form profile-name-form" noValidate onSubmit={(event) => void onSubmit(event)}>
      <TextField
        label="ชื่อที่แสดง"
        name="showName"
        value={value}
        maxLength={SHOW_NAME_MAX}
        autoComplete="nickname"
        error={error}
        onChange={(event) => setValue(event.target.value)}
      />
      <div>
        <Button type="submit" variant="primary" loading={saving} disabled={value.trim() === current}>
          บันทึกชื่อ
        </Button>
      </div>
    </form>
  );
}

function UserSubmissions({ userId }: { userId: number }) {
  const pages = useSubmissionPages(submissionContract.getSubmissionsByUserId, { params: { userId } });
  return (
    <section className="stack" aria-labelledby="profile-submissions">
      <h2 id="profile-submissions" className="profile-section-title">
        ผลตรวจ
      </h2>
      <SubmissionTable
        submissions={pages.data?.pages.flat() ?? []}
        loading={pages.isPending}
        error={pages.error}
        hasMore={pages.hasNextPage}
        loadingMore={pages.isFetchingNextPage}
        onLoadMore={() => void pages.fetchNextPage()}
        label="ผลตรวจของผู้ใช้นี้"
      />
    </section>
  );
}
