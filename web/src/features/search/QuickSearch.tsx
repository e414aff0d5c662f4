/**
 * Quick search (the search button, Ctrl+K or ⌘K): fuzzy match on the problem table by name and id, at most 10
 * results, the first 10 (newest) when the box is empty. Arrow keys move, Enter opens, Escape closes.
 */
import { useQuery } from '@tanstack/react-query';
import { matchSorter } from 'match-sorter';
import { useId, useMemo, useState } from 'react';
import { useNavigate } from 'react-router';
import { problemContract } from '@otog/schemas/api/problem';
import { Dialog } from '../../components/ui/Dialog.tsx';
import { apiQuery } from '../../lib/query.ts';
import './search.css';

const MAX_RESULTS = 10;

export function QuickSearch({ onClose }: { onClose(): void }) {
  const navigate = useNavigate();
  const [text, setText] = useState('');
  const [active, setActive] = useState(0);
  const listId = useId();
  const problems = useQuery({ ...apiQuery(problemContract.getProblems), staleTime: 60_000 });

  const results = useMemo(() => {
    const rows = problems.data ?? [];
    const query = text.trim();
    if (!query) return rows.slice(0, MAX_RESULTS);
    return matchSorter(rows, query, { keys: ['name', (row) => String(row.id)] }).slice(0, MAX_RESULTS);
  }, [problems.data, text]);

  const open = (id: number) => {
    onClose();
    void navigate(`/problem/${id}`);
  };

  return (
    <Dialog open onClose={onClose} title="ค้นหาโจทย์" size="md">
      <input
        className="input quick-search-input"
        placeholder="ค้นหา..."
        aria-label="ค้นหาโจทย์ด้วยชื่อหรือเลขข้อ"
        role="combobox"
        aria-expanded
        aria-controls={listId}
        aria-activedescendant={results[active] ? `${listId}-${results[active].id}` : undefined}
        data-autofocus
        value={text}
        onChange={(event) => {
          setText(event.target.value);
          setActive(0);
        }}
        onKeyDown={(event) => {
          if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
            event.preventDefault();
            const step = event.key === 'ArrowDown' ? 1 : -1;
            setActive((at) => (results.length ? (at + step + results.length) % results.length : 0));
          } else if (event.key === 'Enter' && results[active]) {
            event.preventDefault();
            open(results[active].id);
          }
        }}
      />
      <ul id={listId} role="listbox" className="quick-search-list" aria-label="ผลการค้นหา">
        {problems.isPending ? <li className="muted quick-search-note">กำลังโหลดโจทย์...</li> : null}
        {problems.isError ? <li className="quick-search-note field-error">โหลดรายการโจทย์ไม่สำเร็จ</li> : null}
        {problems.isSuccess && results.length === 0 ? <li className="muted quick-search-note">ไม่พบโจทย์ที่ตรงกับ “{text}”</li> : null}
        {results.map((problem, index) => (
          <li
            key={problem.id}
            id={`${listId}-${problem.id}`}
            role="option"
            aria-selected={index === active}
            className="quick-search-item"
            onMouseEnter={() => setActive(index)}
            onClick={() => open(problem.id)}
          >
            <span className="quick-search-id">{problem.id}</span>
            <span className="quick-search-name">{problem.name}</span>
          </li>
        ))}
      </ul>
    </Dialog>
  );
}
