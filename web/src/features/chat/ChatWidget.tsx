/**
 * The chat widget of every page (signed in and not offline only; the shell mounts it once per user, so
 * signing out forgets its messages): a round button at the bottom right with an orange dot for unread
 * messages and, while closed, a hover card of who is online; it opens the chat panel (loaded on first use;
 * closed, it is not in the page at all).
 *
 * It listens from sign-in on: `chat` appends a message (unread unless the panel is open or it is your own), `chat-deleted`
 * removes one, `online` refreshes the online list, and a reconnection re-reads the loaded history (what
 * was said while disconnected).
 */
import { useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useCallback, useEffect, useId, useState } from 'react';
import { REALTIME_EVENTS } from '@otog/schemas/common/chat';
import { useRealtimeEvent } from '../../lib/realtime.ts';
import { useSession } from '../../lib/session.tsx';
import { CHAT_HISTORY_KEY, dropFromHistory, itemFromPush, ONLINE_KEY, type ChatItem } from './chat-data.ts';
import { ChatIcon } from '../../components/ui/icons.tsx';
import { OnlineHoverCard } from './OnlineUsers.tsx';
import './chat.css';

const ChatPanel = lazy(() => import('./ChatPanel.tsx'));

/** At most this many live messages are kept (the history pages hold the rest). */
const LIVE_MAX = 500;

export function ChatWidget() {
  const queryClient = useQueryClient();
  const { user } = useSession();
  const [open, setOpen] = useState(false);
  const [unread, setUnread] = useState(false);
  const [live, setLive] = useState<readonly ChatItem[]>([]);
  const [deleted, setDeleted] = useState<ReadonlySet<number>>(() => new Set());
  const panelId = useId();

  useRealtimeEvent(REALTIME_EVENTS.chat, (...args: unknown[]) => {
    const item = itemFromPush(args);
    if (!item) return;
    setLive((current) => (current.some((known) => known.id === item.id) ? current : [...current, item].slice(-LIVE_MAX)));
    // (What you sent yourself, from another tab say, is not news to you.)
    if (!open && item.user.id !== user?.id) setUnread(true);
  });
  useRealtimeEvent(REALTIME_EVENTS.chatDeleted, (id: unknown) => {
    if (typeof id !== 'number') return;
    setDeleted((current) => new Set(current).add(id));
    setLive((current) => current.filter((item) => item.id !== id));
    dropFromHistory(queryClient, id);
  });
  useRealtimeEvent(REALTIME_EVENTS.online, () => void queryClient.invalidateQueries({ queryKey: ONLINE_KEY }));
  useRealtimeEvent('connect', () => {
    // Messages said while the socket was away: the loaded pages are read again (ids keep them unique).
    if (queryClient.getQueryData(CHAT_HISTORY_KEY)) void queryClient.invalidateQueries({ queryKey: CHAT_HISTORY_KEY });
  });

  const toggle = () => {
    setOpen((was) => !was);
    setUnread(false);
  };
  const close = useCallback(() => setOpen(false), []);
  const onDeleted = useCallback(
    (id: number) => {
      setDeleted((current) => new Set(current).add(id));
      dropFromHistory(queryClient, id);
    },
    [queryClient],
  );

  // Escape closes the panel when focus is in it (a dialog over it handles its own Escape).
  useEffect(() => {
    if (!open) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape' && !event.defaultPrevented && document.getElementById(panelId)?.contains(document.activeElement)) close();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [open, close, panelId]);

  const label = open ? 'ปิดแชท' : unread ? 'เปิดแชท (มีข้อความใหม่)' : 'เปิดแชท';
  return (
    <div className="chat-widget">
      {open ? (
        <Suspense fallback={null}>
          <ChatPanel id={panelId} live={live} deleted={deleted} onClose={close} onDeleted={onDeleted} />
        </Suspense>
      ) : null}
      <OnlineHoverCard enabled={!open} placement="above">
        {(describedBy) => (
          <button
            type="button"
            className="chat-button"
            aria-label={label}
            aria-expanded={open}
            aria-controls={open ? panelId : undefined}
            aria-describedby={describedBy}
            data-unread={unread || undefined}
            onClick={toggle}
          >
            <ChatIcon width={22} height={22} />
            {unread ? <span className="chat-unread-dot" aria-hidden /> : null}
          </button>
        )}
      </OnlineHoverCard>
    </div>
  );
}
