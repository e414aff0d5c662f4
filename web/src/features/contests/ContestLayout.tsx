import type { ReactNode } from 'react';
import { Route, Routes } from 'react-router';

/** /contest/{id}/*: one contest's pages (placeholder until the contest pages land). */
export default function ContestLayout({ scoreboard }: { scoreboard: ReactNode }) {
  return (
    <Routes>
      <Route path="scoreboard" element={scoreboard} />
      <Route path="*" element={<section className="page" />} />
    </Routes>
  );
}
