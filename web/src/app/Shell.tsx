/**
 * Every page's frame: skip link, top bar (logo, sections, search, colour mode, sign-in or user menu), a side
 * menu on small screens, the page in #content, the footer, and the chat widget for signed-in users. It
 * holds the session's realtime channel (lib/realtime.ts). Offline (on-site contests) hides the sections,
 * the search, the profile link and the chat, as OTOG does.
 */
import { useEffect, useState, type ReactNode } from 'react';
import { Link, NavLink, useLocation } from 'react-router';
import { ButtonLink, IconButton } from '../components/ui/Button.tsx';
import { ChevronDownIcon, MenuIcon, MonitorIcon, MoonIcon, SearchIcon, SunIcon } from '../components/ui/icons.tsx';
import { Menu, MenuItem } from '../components/ui/Menu.tsx';
import { ChatWidget } from '../features/chat/ChatWidget.tsx';
import { QuickSearch } from '../features/search/QuickSearch.tsx';
import { config } from '../lib/config.ts';
import { RealtimeProvider } from '../lib/realtime.ts';
import { useSession } from '../lib/session.tsx';
import { useTheme, type ThemeMode } from '../lib/theme.tsx';
import { UserAvatar } from '../components/UserAvatar.tsx';

const SECTIONS = [
  { to: '/problem', label: 'โจทย์' },
  { to: '/submission', label: 'ผลตรวจ' },
  { to: '/contest', label: 'แข่งขัน' },
] as const;

/** Apple keyboards say ⌘ where the others say Ctrl; both keys open the search everywhere. */
function isApplePlatform(): boolean {
  const platform = (navigator as Navigator & { userAgentData?: { platform?: string } }).userAgentData?.platform || navigator.platform || navigator.userAgent;
  return /mac|iphone|ipad|ipod/i.test(platform);
}
const SEARCH_KEY_HINT = isApplePlatform() ? '⌘K' : 'Ctrl K';

/** Ctrl+K or ⌘K (and not with Shift or Alt, which other shortcuts may use). */
const isSearchShortcut = (event: Pick<KeyboardEvent, 'key' | 'metaKey' | 'ctrlKey' | 'shiftKey' | 'altKey'>) =>
  (event.metaKey || event.ctrlKey) && !event.shiftKey && !event.altKey && event.key.toLowerCase() === 'k';

/** The section of a path: its first segment ("/problem/12" → "/problem"). */
const sectionOf = (pathname: string) => `/${pathname.split('/')[1] ?? ''}`;

function SectionLinks({ vertical = false, onNavigate }: { vertical?: boolean; onNavigate?: () => void }) {
  const { pathname } = useLocation();
  const current = sectionOf(pathname);
  return (
    <ul className={vertical ? 'nav-links nav-links-vertical' : 'nav-links'}>
      {SECTIONS.map((section) => (
        <li key={section.to}>
          <NavLink to={section.to} className="nav-link" aria-current={current === section.to ? 'page' : undefined} onClick={onNavigate}>
            {section.label}
          </NavLink>
        </li>
      ))}
    </ul>
  );
}

const NEXT_MODE: Record<ThemeMode, ThemeMode> = { system: 'light', light: 'dark', dark: 'system' };
const MODE_LABEL: Record<ThemeMode, string> = { light: 'โหมดสว่าง', dark: 'โหมดมืด', system: 'ตามระบบ' };

function ThemeToggle() {
  const { mode, setMode } = useTheme();
  const next = NEXT_MODE[mode];
  return (
    <IconButton label={`ธีม: ${MODE_LABEL[mode]} (กดเพื่อเปลี่ยนเป็น${MODE_LABEL[next]})`} data-theme-mode={mode} onClick={() => setMode(next)}>
      {mode === 'light' ? <SunIcon /> : mode === 'dark' ? <MoonIcon /> : <MonitorIcon />}
    </IconButton>
  );
}

function UserMenu() {
  const { user, isAdmin, logout } = useSession();
  if (!user) return null;
  return (
    <Menu
      label={`เมนูผู้ใช้ ${user.showName}`}
      button={
        <>
          <UserAvatar userId={user.id} name={user.showName} size="sm" />
          <ChevronDownIcon width={14} height={14} />
        </>
      }
    >
      <div className="menu-heading">
        {isAdmin ? (
          <Link to="/admin" className="menu-admin-link" role="menuitem">
            {user.showName}
          </Link>
        ) : (
          <span className="menu-name">{user.showName}</span>
        )}
      </div>
      {config.offline ? null : (
        <Link to={`/user/${user.id}`} role="menuitem" className="menu-item">
          โปรไฟล์
        </Link>
      )}
      <MenuItem danger onSelect={() => void logout()}>
        ออกจากระบบ
      </MenuItem>
    </Menu>
  );
}

function TopBar({ onOpenMenu, onOpenSearch }: { onOpenMenu(): void; onOpenSearch(): void }) {
  const { isAuthenticated } = useSession();
  return (
    <header className="topbar">
      <div className="topbar-inner">
        {config.offline ? null : (
          <IconButton label="เปิดเมนู" className="only-small" onClick={onOpenMenu}>
            <MenuIcon />
          </IconButton>
        )}
        <Link to="/" className="logo" title="One Tambon One Grader" aria-label="OTOG — One Tambon One Grader หน้าแรก">
          <img src="/logo.svg" alt="" width={32} height={32} />
          <span className="logo-text">OTOG</span>
        </Link>
        {config.offline ? null : (
          <nav aria-label="เมนูหลัก" className="only-large">
            <SectionLinks />
          </nav>
        )}
        <div className="topbar-right">
          {config.offline ? null : (
            <button type="button" className="search-button" onClick={onOpenSearch} aria-label="ค้นหาโจทย์" aria-keyshortcuts="Control+K Meta+K">
              <SearchIcon />
              <span className="only-large">ค้นหาโจทย์</span>
              <kbd className="only-large search-key-hint">{SEARCH_KEY_HINT}</kbd>
            </button>
          )}
          <ThemeToggle />
          {isAuthenticated ? (
            <UserMenu />
          ) : (
            <ButtonLink to="/login" variant="primary" size="sm">
              เข้าสู่ระบบ
            </ButtonLink>
          )}
        </div>
      </div>
    </header>
  );
}

function SideMenu({ open, onClose }: { open: boolean; onClose(): void }) {
  if (!open) return null;
  return (
    <div className="sidemenu-backdrop" onClick={onClose}>
      <nav className="sidemenu" aria-label="เมนูหลัก" onClick={(event) => event.stopPropagation()}>
        <div className="sidemenu-header">
          <span className="logo-text">OTOG</span>
          <IconButton label="ปิดเมนู" onClick={onClose}>
            ✕
          </IconButton>
        </div>
        {/* Closed at the click: a page still loading keeps the old screen (and the route) for a moment. */}
        <SectionLinks vertical onNavigate={onClose} />
      </nav>
    </div>
  );
}

function Footer() {
  return (
    <footer className="footer">
      {config.offline ? (
        <p>หากมีข้อสงสัย กรุณายกมือถาม</p>
      ) : (
        <p>
          สามารถรายงานปัญหา{' '}
          <a href={config.issueLink} target="_blank" rel="noreferrer">
            ได้ที่นี่
          </a>
        </p>
      )}
      <p>
        {config.offline ? (
          '© 2025 Phakphum Dev Team'
        ) : (
          <a href={config.contactLink} target="_blank" rel="noreferrer">
            © 2025 Phakphum Dev Team
          </a>
        )}
      </p>
    </footer>
  );
}

export function Shell({ children }: { children: ReactNode }) {
  const { user } = useSession();
  const [menuOpen, setMenuOpen] = useState(false);
  const [searchOpen, setSearchOpen] = useState(false);
  const { pathname } = useLocation();

  // The side menu closes whenever the route changes.
  useEffect(() => setMenuOpen(false), [pathname]);

  useEffect(() => {
    if (config.offline) return;
    const onKey = (event: KeyboardEvent) => {
      if (isSearchShortcut(event)) {
        event.preventDefault();
        setSearchOpen(true);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  return (
    <RealtimeProvider>
      <div className="shell">
        <a href="#content" className="skip-link">
          ข้ามไปยังเนื้อหาหลัก
        </a>
        <TopBar onOpenMenu={() => setMenuOpen(true)} onOpenSearch={() => setSearchOpen(true)} />
        {config.offline ? null : <SideMenu open={menuOpen} onClose={() => setMenuOpen(false)} />}
        <main id="content" tabIndex={-1} className="content">
          {children}
        </main>
        <Footer />
        {searchOpen ? <QuickSearch onClose={() => setSearchOpen(false)} /> : null}
        {/* One per user: signing out (or in as someone else) forgets the previous user's chat. */}
        {user && !config.offline ? <ChatWidget key={user.id} /> : null}
      </div>
    </RealtimeProvider>
  );
}
