/** [ours] "ย้อนดูกระดาน": a slider over the contest's time, with play/pause stepping 1/60 of it every half second. */
import { useEffect, useId } from 'react';
import { Button } from '../../../components/ui/Button.tsx';
import { formatDateTime } from '../../../lib/dates.ts';
import { formatContestClock } from '../phase.ts';
import { REPLAY_STEPS, replayMoment } from './board.ts';

export const REPLAY_TICK_MS = 500;

export function ReplayControl({
  timeStart,
  timeEnd,
  step,
  playing,
  onStep,
  onPlaying,
  onClose,
  loading,
  refused,
}: {
  timeStart: number;
  timeEnd: number;
  step: number;
  playing: boolean;
  onStep(step: number): void;
  onPlaying(playing: boolean): void;
  onClose(): void;
  loading: boolean;
  /** The server would not show the board at this moment (the freeze still hides it). */
  refused: boolean;
}) {
  const sliderId = useId();
  const moment = replayMoment(timeStart, timeEnd, step);
  const clock = formatContestClock((moment - timeStart) / 1000);

  useEffect(() => {
    if (!playing) return;
    if (step >= REPLAY_STEPS) {
      onPlaying(false);
      return;
    }
    const timer = window.setTimeout(() => onStep(step + 1), REPLAY_TICK_MS);
    return () => window.clearTimeout(timer);
  }, [playing, step, onStep, onPlaying]);

  return (
    <section className="sb-replay card" aria-label="ย้อนดูกระดาน">
      <div className="sb-replay-row">
        <label htmlFor={sliderId} className="field-label">
          กระดาน ณ เวลา <strong className="sb-replay-clock">{clock}</strong>
        </label>
        <span className="muted sb-replay-date">{formatDateTime(moment)}</span>
        {loading ? <span className="spinner spinner-sm" role="status" aria-label="กำลังโหลดกระดาน" /> : null}
      </div>
      <input
        id={sliderId}
        type="range"
        className="sb-replay-slider"
        min={0}
        max={REPLAY_STEPS}
        step={1}
        value={step}
        aria-valuetext={`${clock} (${formatDateTime(moment)})`}
        onChange={(event) => {
          onPlaying(false);
          onStep(Number(event.target.value));
        }}
      />
      <div className="sb-replay-row">
        <span className="muted">0:00:00</span>
        <span className="sb-replay-spacer" />
        <span className="muted">{formatContestClock((timeEnd - timeStart) / 1000)}</span>
      </div>
      {refused ? (
        <p className="sb-replay-refused" role="alert">
          ยังดูกระดาน ณ เวลานี้ไม่ได้ กระดานที่แสดงอยู่เป็นของเวลาก่อนหน้า
        </p>
      ) : null}
      <div className="sb-replay-row">
        <Button
          size="sm"
          variant="primary"
          aria-pressed={playing}
          onClick={() => {
            if (!playing && step >= REPLAY_STEPS) onStep(0);
            onPlaying(!playing);
          }}
        >
          {playing ? 'หยุดเล่น' : 'เล่น'}
        </Button>
        <Button size="sm" variant="outline" onClick={onClose}>
          กลับสู่กระดานปัจจุบัน
        </Button>
      </div>
    </section>
  );
}
