/** The contest tables of /contest (with a countdown) and /contest/history: # (the id), name, mode, start, length. */
import { Link } from 'react-router';
import type { Contest } from '@otog/schemas/api/contest';
import { formatDate, formatDateTime } from '../../lib/dates.ts';
import { MODE_LABEL } from './contest-hooks.ts';
import { formatCountdown, formatThaiDuration, untilNextBoundary } from './phase.ts';

/** `now` (the server's clock) adds the countdown column; on a phone it replaces the mode and the length. */
export function ContestTable({ contests, label, now }: { contests: readonly Contest[]; label: string; now?: number }) {
  return (
    <div className="table-wrap">
      <table className={now === undefined ? 'table contest-table' : 'table contest-table contest-table-live'} aria-label={label}>
        <thead>
          <tr>
            <th scope="col" className="num">#</th>
            <th scope="col">การแข่งขัน</th>
            <th scope="col" className="contest-col-extra">โหมด</th>
            <th scope="col">เวลาเริ่ม</th>
            <th scope="col" className="contest-col-extra">ระยะเวลา</th>
            {now === undefined ? null : <th scope="col">นับถอยหลัง</th>}
          </tr>
        </thead>
        <tbody>
          {contests.map((contest) => (
            <tr key={contest.id} data-contest-id={contest.id}>
              <td className="num">{contest.id}</td>
              <td className="contest-name-cell">
                <Link to={`/contest/${contest.id}`}>{contest.name}</Link>
              </td>
              <td className="nowrap contest-col-extra">{MODE_LABEL[contest.mode]}</td>
              <td className="nowrap">
                <time dateTime={contest.timeStart} title={formatDateTime(contest.timeStart)}>
                  {now === undefined ? formatDate(contest.timeStart) : formatDateTime(contest.timeStart)}
                </time>
              </td>
              <td className="contest-col-extra">{formatThaiDuration(Date.parse(contest.timeEnd) - Date.parse(contest.timeStart))}</td>
              {now === undefined ? null : (
                <td className="nowrap contest-countdown">
                  <span className="sr-only">{Date.parse(contest.timeStart) > now ? 'เริ่มในอีก' : 'จบในอีก'}</span>
                  {formatCountdown(untilNextBoundary(contest, now))}
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
