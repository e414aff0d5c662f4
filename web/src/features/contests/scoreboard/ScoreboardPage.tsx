import { usePageTitle } from '../../../lib/page-title.ts';

/** /contest/{id}/scoreboard (placeholder until the scoreboard lands). */
export default function ScoreboardPage() {
  usePageTitle('ตารางคะแนน');
  return <section className="page" />;
}
