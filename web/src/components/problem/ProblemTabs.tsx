/**
 * A problem's tabs โจทย์ / เขียนโค้ด / ผลตรวจ, the selected one kept in `?tab=`; signed-out readers get the
 * statement alone. With `contestId` (the contest problem page) submissions go to that contest and the
 * results tab lists the caller's submissions in it. The editor's draft survives switching tabs.
 */
import { useCallback, useState } from 'react';
import { useSearchParams } from 'react-router';
import type { Problem } from '@otog/schemas/api/problem';
import { TabPanel, Tabs, type TabItem } from '../ui/Tabs.tsx';
import { useSession } from '../../lib/session.tsx';
import { EditorTab, type Draft } from './EditorTab.tsx';
import { StatementTab } from './StatementTab.tsx';
import { SubmissionsTab } from './SubmissionsTab.tsx';

type Tab = 'problem' | 'editor' | 'submissions';
const TABS: ReadonlyArray<TabItem<Tab>> = [
  { id: 'problem', label: 'โจทย์' },
  { id: 'editor', label: 'เขียนโค้ด' },
  { id: 'submissions', label: 'ผลตรวจ' },
];
const isTab = (value: string | null): value is Tab => value === 'problem' || value === 'editor' || value === 'submissions';

export function ProblemTabs({ problem, contestId }: { problem: Problem; contestId?: number }) {
  const { user, isAdmin } = useSession();
  const [searchParams, setSearchParams] = useSearchParams();
  const [draft, setDraft] = useState<Draft | null>(null);
  const asked = searchParams.get('tab');
  const tab: Tab = user && isTab(asked) ? asked : 'problem';
  const selectTab = useCallback(
    (next: Tab) =>
      setSearchParams(
        (current) => {
          const params = new URLSearchParams(current);
          params.set('tab', next);
          return params;
        },
        { replace: true },
      ),
    [setSearchParams],
  );

  if (!user) return <StatementTab problem={problem} isAdmin={false} />;
  return (
    <>
      <Tabs items={TABS} selected={tab} onSelect={selectTab} label={`แท็บของโจทย์ ${problem.name}`} />
      {tab === 'problem' ? (
        <TabPanel id="problem">
          <StatementTab problem={problem} isAdmin={isAdmin} />
        </TabPanel>
      ) : null}
      {tab === 'editor' ? (
        <TabPanel id="editor">
          <EditorTab problem={problem} contestId={contestId} draft={draft} onDraft={setDraft} onSubmitted={() => selectTab('submissions')} />
        </TabPanel>
      ) : null}
      {tab === 'submissions' ? (
        <TabPanel id="submissions">
          <SubmissionsTab problem={problem} userId={user.id} contestId={contestId} onWrite={() => selectTab('editor')} />
        </TabPanel>
      ) : null}
    </>
  );
}
