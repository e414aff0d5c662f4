/** The admin area ("ระบบจัดการ"): tabs for problems, contests, users, announcements and the projections' status, each a nested route of /admin. */
import { NavLink, Route, Routes } from 'react-router';
import { Empty } from '../../components/ui/Empty.tsx';
import { AnnouncementsPage } from './AnnouncementsPage.tsx';
import { ContestPage } from './ContestPage.tsx';
import { ContestsPage } from './ContestsPage.tsx';
import { ProblemsPage } from './ProblemsPage.tsx';
import { ProjectionsPage } from './ProjectionsPage.tsx';
import { UsersPage } from './UsersPage.tsx';
import './admin.css';

const TABS = [
  { to: '/admin', label: 'โจทย์', end: true },
  { to: '/admin/contest', label: 'แข่งขัน', end: false },
  { to: '/admin/user', label: 'ผู้ใช้งาน', end: false },
  { to: '/admin/announcement', label: 'ประกาศ', end: false },
  { to: '/admin/projection', label: 'สถานะระบบ', end: false },
] as const;

export default function AdminApp() {
  return (
    <section className="page admin">
      <h1 className="page-title">ระบบจัดการ</h1>
      <nav aria-label="เมนูระบบจัดการ">
        <ul className="admin-tabs">
          {TABS.map((tab) => (
            // NavLink marks the current tab with aria-current="page".
            <li key={tab.to}>
              <NavLink to={tab.to} end={tab.end} className="admin-tab">
                {tab.label}
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <Routes>
        <Route index element={<ProblemsPage />} />
        <Route path="contest" element={<ContestsPage />} />
        <Route path="contest/:contestId" element={<ContestPage />} />
        <Route path="user" element={<UsersPage />} />
        <Route path="announcement" element={<AnnouncementsPage />} />
        <Route path="projection" element={<ProjectionsPage />} />
        <Route path="*" element={<Empty>ไม่พบหน้าที่ต้องการในระบบจัดการ</Empty>} />
      </Routes>
    </section>
  );
}
