/**
 * Who is online: the hover card (the first 15 names, then "...ทั้งหมด {n} คน") and the dialog
 * "ผู้ที่ออนไลน์ ({n})" listing everyone with a link to their profile.
 */
import { useId, useState, type ReactElement, type ReactNode } from 'react';
import { Link } from 'react-router';
import { Dialog } from '../../components/ui/Dialog.tsx';
import { Empty } from '../../components/ui/Empty.tsx';
import { Spinner } from '../../components/ui/Spinner.tsx';
import { UserAvatar } from '../../components/UserAvatar.tsx';
import { useOnlineUsers } from './chat-data.ts';

/** The hover card names at most this many users. */
export const ONLINE_PREVIEW = 15;

function HoverList() {
  const online = useOnlineUsers(true);
  if (online.isPending) return <Spinner size="sm" label="กำลังโหลดผู้ที่ออนไลน์..." />;
  const users = online.data ?? [];
  if (users.length === 0) return <p className="chat-hover-empty">ไม่มีผู้ที่ออนไลน์</p>;
  return (
    <>
      <ul className="chat-hover-list">
        {users.slice(0, ONLINE_PREVIEW).map((user) => (
          <li key={user.id}>
            <span className="chat-online-dot" aria-hidden />
            <span className="chat-truncate">{user.showName}</span>
          </li>
        ))}
      </ul>
      {users.length > ONLINE_PREVIEW ? <p className="chat-hover-more">...ทั้งหมด {users.length} คน</p> : null}
    </>
  );
}

/**
 * Shows the online users beside `children` while the pointer is over it or it has the keyboard focus
 * (and `enabled`). The list is read only while it shows.
 */
export function OnlineHoverCard({ enabled = true, placement, children }: { enabled?: boolean; placement: 'above' | 'below'; children(describedBy: string | undefined): ReactElement }) {
  const [hovered, setHovered] = useState(false);
  const [focused, setFocused] = useState(false);
  const id = useId();
  const shown = enabled && (hovered || focused);
  return (
    <div
      className="chat-hover-anchor"
      onMouseEnter={() => setHovered(true)}
      onMouseLeave={() => setHovered(false)}
      onFocus={(event) => setFocused(event.target instanceof HTMLElement && event.target.matches(':focus-visible'))}
      onBlur={() => setFocused(false)}
      onKeyDown={(event) => {
        if (event.key === 'Escape') {
          setHovered(false);
          setFocused(false);
        }
      }}
    >
      {children(shown ? id : undefined)}
      {shown ? (
        <div id={id} role="tooltip" className={`chat-hover-card chat-hover-${placement}`}>
          <p className="chat-hover-title">ผู้ที่ออนไลน์</p>
          <HoverList />
        </div>
      ) : null}
    </div>
  );
}

export function OnlineDialog({ onClose }: { onClose(): void }) {
  const online = useOnlineUsers(true);
  const users = online.data ?? [];
  let body: ReactNode;
  if (online.isPending) {
    body = (
      <div className="chat-dialog-loading">
        <Spinner />
      </div>
    );
  } else if (users.length === 0) {
    body = <Empty>ไม่มีผู้ที่ออนไลน์</Empty>;
  } else {
    body = (
      <ul className="chat-online-list">
        {users.map((user) => (
          <li key={user.id}>
            <Link to={`/user/${user.id}`} className="chat-online-user" onClick={onClose}>
              <UserAvatar userId={user.id} name={user.showName} size="sm" />
              <span className="chat-truncate">{user.showName}</span>
            </Link>
          </li>
        ))}
      </ul>
    );
  }
  return (
    <Dialog open onClose={onClose} title={online.isPending ? 'ผู้ที่ออนไลน์' : `ผู้ที่ออนไลน์ (${users.length})`} size="sm">
      {body}
    </Dialog>
  );
}
