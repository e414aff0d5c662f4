/**
 * /contest/{id}/scoreboard: the ranked board (live from the contest room, polled every 15 s without a
 * socket), the score-history dialog, the prizes, a frozen board's banner and the admin's reveal, and the
 * replay of the board at an earlier moment. Live data goes into the same table, so the scroll position
 * and the rows on screen stay.
 */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { Link, useParams } from 'react-router';
import { contestContract } from '@otog/schemas/api/contest';
import { REALTIME_EVENTS } from '@otog/schemas/common/chat';
import { Button } from '../../../components/ui/Button.tsx';
import { Dialog } from '../../../components/ui/Dialog.tsx';
import { Empty } from '../../../components/ui/Empty.tsx';
import { PageLoading } from '../../../components/ui/Spinner.tsx';
import { ApiError, callApi, errorMessage } from '../../../lib/api.ts';
import { formatDateTime } from '../../../lib/dates.ts';
import { usePageTitle } from '../../../lib/page-title.ts';
import { apiKey, apiQuery } from '../../../lib/query.ts';
import { useRealtimeEvent, useWatch } from '../../../lib/realtime.ts';
import { useServerNow } from '../../../lib/server-time.ts';
import { useSession } from '../../../lib/session.tsx';
import { useDebounced } from '../../../lib/use-debounced.ts';
import { toast } from '../../../lib/toast.tsx';
import { contestPhase } from '../phase.ts';
import { boardQuery, boardsOf } from './board-query.ts';
import { parseContestId, policyMessage, REPLAY_STEPS, replayMoment, replayStepAtOrBefore, type BoardProblem, type BoardRow } from './board.ts';
import { PrizeTable } from './PrizeTable.tsx';
import { ReplayControl } from './ReplayControl.tsx';
import type { ScoreHistoryTarget } from './ScoreHistoryDialog.tsx';
import { ScoreboardTable, type BoardActions, type BoardHandle } from './ScoreboardTable.tsx';
import './scoreboard.css';

const ScoreHistoryDialog = lazy(() => import('./ScoreHistoryDialog.tsx'));

/** Without a socket the board asks again this often while the contest runs. */
export const POLL_MS = 15_000;
/** The slider waits this long after it stops moving before asking for the board. */
const REPLAY_DEBOUNCE_MS = 200;

export default function ScoreboardPage() {
  const contestId = parseContestId(useParams().contestId);
  usePageTitle('ตารางคะแนน');
  if (contestId === null) {
    return (
      <section className="page">
        <Empty tone="error">ไม่พบการแข่งขันนี้</Empty>
      </section>
    );
  }
  return <Scoreboard key={contestId} contestId={contestId} />;
}

function Scoreboard({ contestId }: { contestId: number }) {
  const { user, isAdmin } = useSession();
  const queryClient = useQueryClient();
  // The phase only decides polling and the replay's availability: a coarse clock keeps the board from re-rendering every second.
  const now = useServerNow(15_000);
  const contest = useQuery(apiQuery(contestContract.getContest, { params: { contestId } }));
  const phase = contest.data ? contestPhase(contest.data, now) : undefined;

  const [replayStep, setReplayStep] = useState<number | null>(null);
  const [playing, setPlaying] = useState(false);
  const debouncedStep = useDebounced(replayStep, REPLAY_DEBOUNCE_MS);
  const timeStart = contest.data ? Date.parse(contest.data.timeStart) : 0;
  const timeEnd = contest.data ? Date.parse(contest.data.timeEnd) : 0;
  const replayAt = replayStep === null || debouncedStep === null || !contest.data ? null : new Date(replayMoment(timeStart, timeEnd, debouncedStep)).toISOString();

  const watched = useWatch({ contestId });
  const board = useQuery({
    ...boardQuery(contestId, replayAt),
    // The replay keeps showing the last board while the next moment loads.
    placeholderData: keepPreviousData,
    refetchInterval: !watched && phase === 'RUNNING' && replayAt === null ? POLL_MS : false,
  });
  // A replay the server refuses (past a freeze still in force, say) keeps the last board on screen.
  const lastBoard = useRef(board.data);
  if (board.data) lastBoard.current = board.data;
  const shown = board.data ?? (replayStep !== null ? lastBoard.current : undefined);
  const replayRefused = replayStep !== null && board.isError;
  const boardOpen = shown !== undefined;
  const prizes = useQuery({ ...apiQuery(contestContract.getContestPrize, { params: { contestId } }), enabled: boardOpen, refetchInterval: !watched && phase === 'RUNNING' ? POLL_MS : false });

  // A read still on its way is not repeated: it answers for the moment it reaches the server.
  const refetchBoard = useCallback(() => {
    void queryClient.invalidateQueries({ queryKey: boardsOf(contestId) }, { cancelRefetch: false });
    void queryClient.invalidateQueries({ queryKey: apiKey(contestContract.getContestPrize, { params: { contestId } }).slice(0, 3) }, { cancelRefetch: false });
  }, [queryClient, contestId]);
  useRealtimeEvent(REALTIME_EVENTS.scoreboard, (notice: unknown) => {
    if ((notice as { id?: unknown } | null)?.id !== contestId) return;
    refetchBoard();
  });
  // A change folded before the room was joined told nobody, and polling stops once it is joined: what was
  // read until then may already be stale, a read still on its way too (the board asked for at page load).
  const wasWatched = useRef(watched);
  useEffect(() => {
    if (watched && !wasWatched.current) {
      const inFlight = queryClient.isFetching({ queryKey: boardsOf(contestId) }) > 0;
      if (inFlight) void queryClient.refetchQueries({ queryKey: boardsOf(contestId) }, { cancelRefetch: false }).then(refetchBoard);
      else refetchBoard();
    }
    wasWatched.current = watched;
  }, [watched, refetchBoard, queryClient, contestId]);

  const problems = useMemo<readonly BoardProblem[]>(() => shown?.problems ?? [], [shown]);
  const rows = useMemo<readonly BoardRow[]>(() => shown?.rows ?? [], [shown]);
  const firstBlood = useMemo(
    () => new Map((prizes.data?.firstBlood ?? []).flatMap((prize) => (prize.problem && prize.user ? [[prize.problem.id, prize.user.id] as const] : []))),
    [prizes.data],
  );

  const [compact, setCompact] = useState(false);
  const [history, setHistory] = useState<ScoreHistoryTarget | null>(null);
  const [confirmReveal, setConfirmReveal] = useState(false);
  const table = useRef<BoardHandle>(null);
  const actions = useMemo<BoardActions>(() => ({ openHistory: (entry, problemId) => setHistory({ entry, problemId }) }), []);
  const meOnBoard = user !== null && rows.some((entry) => entry.userId === user.id);

  const reveal = useMutation({
    mutationFn: () => callApi(contestContract.revealScoreboard, { params: { contestId } }),
    onSuccess: () => {
      toast.success('เปิดเผยกระดานคะแนนแล้ว');
      setConfirmReveal(false);
      void queryClient.invalidateQueries({ queryKey: boardsOf(contestId) });
    },
    onError: (error) => toast.error(errorMessage(error)),
  });

  const updateStep = useCallback((step: number) => setReplayStep(step), []);
  const stopReplay = () => {
    setPlaying(false);
    setReplayStep(null);
  };

  const name = contest.data?.name ?? shown?.contest.name ?? '';
  const breadcrumb = (
    <nav aria-label="ลำดับหน้า" className="sb-breadcrumb">
      <ol>
        <li>{name ? <Link to={`/contest/${contestId}`}>{name}</Link> : <span className="muted">การแข่งขัน</span>}</li>
        <li aria-current="page">
          <h1 className="page-title">ตารางคะแนน</h1>
        </li>
      </ol>
    </nav>
  );

  if (board.isPending && !shown) {
    return (
      <section className="page sb-page">
        {breadcrumb}
        <PageLoading />
      </section>
    );
  }
  if (!shown) {
    const error = board.error;
    const message =
      error instanceof ApiError && error.status === 403
        ? policyMessage(contest.data?.scoreboardPolicy, phase)
        : error instanceof ApiError && (error.status === 404 || error.status === 400)
          ? 'ไม่พบการแข่งขันนี้'
          : errorMessage(error);
    return (
      <section className="page sb-page">
        {breadcrumb}
        <Empty tone={error instanceof ApiError && error.status === 403 ? 'muted' : 'error'}>
          <span role="status">{message}</span>
        </Empty>
      </section>
    );
  }

  const data = shown;
  const freezeAt = data.contest.freezeAt ? Date.parse(data.contest.freezeAt) : null;
  const canReplay = isAdmin || phase === 'FINISHED';
  const replaying = replayStep !== null;

  return (
    <section className="page sb-page">
      {breadcrumb}
      {data.frozenAt ? (
        <p className="sb-banner" role="status">
          กระดานคะแนนถูกแช่แข็งตั้งแต่ {formatDateTime(data.frozenAt)}
        </p>
      ) : null}
      {isAdmin && freezeAt !== null && now >= freezeAt ? (
        <div className="sb-banner sb-banner-admin">
          <span>ผู้เข้าแข่งขันเห็นกระดานคะแนน ณ {formatDateTime(freezeAt)} จนกว่าจะเปิดเผย</span>
          <Button size="sm" variant="primary" onClick={() => setConfirmReveal(true)}>
            เปิดเผยกระดานคะแนน
          </Button>
        </div>
      ) : null}
      <div className="sb-toolbar">
        <Button size="sm" variant="outline" aria-pressed={compact} onClick={() => setCompact((value) => !value)}>
          {compact ? 'แสดงรายละเอียด' : 'ซ่อนรายละเอียด'}
        </Button>
        {meOnBoard ? (
          <Button size="sm" variant="outline" onClick={() => user && table.current?.scrollToUser(user.id)}>
            ไปที่อันดับของฉัน
          </Button>
        ) : null}
        {canReplay ? (
          <Button
            size="sm"
            variant={replaying ? 'secondary' : 'outline'}
            aria-pressed={replaying}
            onClick={() => (replaying ? stopReplay() : setReplayStep(data.frozenAt ? replayStepAtOrBefore(timeStart, timeEnd, Date.parse(data.frozenAt)) : REPLAY_STEPS))}
          >
            ย้อนดูกระดาน
          </Button>
        ) : null}
        <span className="muted sb-count">{rows.length.toLocaleString('th-TH')} คน</span>
      </div>
      {replaying && contest.data ? (
        <ReplayControl
          timeStart={timeStart}
          timeEnd={timeEnd}
          step={replayStep}
          playing={playing}
          onStep={updateStep}
          onPlaying={setPlaying}
          onClose={stopReplay}
          loading={board.isFetching || replayStep !== debouncedStep}
          refused={replayRefused}
        />
      ) : null}
      <ScoreboardTable
        ref={table}
        rows={rows}
        problems={problems}
        compact={compact}
        meId={user?.id ?? null}
        firstBlood={firstBlood}
        actions={actions}
        animate={replaying}
        busy={board.isFetching}
      />
      {prizes.data && !replaying ? <PrizeTable prizes={prizes.data} problems={problems} /> : null}
      {history ? (
        <Suspense fallback={null}>
          <ScoreHistoryDialog contestId={contestId} timeStart={timeStart || Date.parse(data.contest.timeStart)} timeEnd={timeEnd || Date.parse(data.contest.timeEnd)} problems={problems} rows={rows} target={history} onClose={() => setHistory(null)} />
        </Suspense>
      ) : null}
      <Dialog
        open={confirmReveal}
        onClose={() => setConfirmReveal(false)}
        title="ยืนยันการเปิดเผยกระดานคะแนน"
        size="sm"
        footer={
          <>
            <Button variant="ghost" onClick={() => setConfirmReveal(false)}>
              ยกเลิก
            </Button>
            <Button variant="primary" loading={reveal.isPending} onClick={() => reveal.mutate()} data-autofocus>
              เปิดเผย
            </Button>
          </>
        }
      >
        <p>ทุกคนจะเห็นกระดานคะแนนปัจจุบันทันที</p>
      </Dialog>
    </section>
  );
}
