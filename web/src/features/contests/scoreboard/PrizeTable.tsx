/** "รางวัล": one row per prize kind, one column per problem, the winner's name or "-". */
import { Link } from 'react-router';
import type { Prize, Prizes } from '@otog/schemas/api/contest';
import { BloodDropIcon, MedalIcon } from './prize-icons.tsx';
import type { BoardProblem } from './board.ts';

const KINDS = [
  { key: 'firstBlood', name: 'First Blood', Icon: BloodDropIcon, description: 'ผู้ที่ผ่านข้อนี้เป็นคนแรก' },
  { key: 'oneManSolve', name: 'One Man Solve', Icon: MedalIcon, description: 'ผู้เดียวที่ผ่านข้อนี้' },
] as const;

function winnerOf(prizes: ReadonlyArray<Prize>, problemId: number) {
  return prizes.find((prize) => prize.problem?.id === problemId)?.user ?? null;
}

export function PrizeTable({ prizes, problems }: { prizes: Prizes; problems: ReadonlyArray<BoardProblem> }) {
  return (
    <section className="sb-prizes" aria-labelledby="sb-prizes-title">
      <h2 id="sb-prizes-title" className="card-title">
        รางวัล
      </h2>
      <div className="table-wrap">
        <table className="table sb-prize-table">
          <thead>
            <tr>
              <th scope="col">รางวัล</th>
              {problems.map((problem) => (
                <th key={problem.id} scope="col">
                  {problem.name}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {KINDS.map((kind) => (
              <tr key={kind.key} data-prize={kind.key}>
                <th scope="row" className="sb-prize-kind">
                  <kind.Icon /> {kind.name}
                  <div className="muted sb-prize-description">{kind.description}</div>
                </th>
                {problems.map((problem) => {
                  const winner = winnerOf(prizes[kind.key], problem.id);
                  return (
                    <td key={problem.id} data-problem-id={problem.id}>
                      {winner ? <Link to={`/user/${winner.id}`}>{winner.showName}</Link> : <span className="muted">-</span>}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
