/**
 * The open chat: a 320×420 panel at the bottom right (it stays open on outside clicks). Its title
 * "OTOG Chat" opens the online dialog and, hovered, shows who is online. The feed is the history (older
 * pages load when the top of the list scrolls into view) plus what arrived live, oldest first: a Thai
 * date header when the day changes, one user's consecutive messages grouped (name at the top, avatar at
 * the bottom), your own on the right in orange, emoji-only messages large, the full time on hover, and a
 * delete action for admins. The form sends over the realtime channel and shows the server's refusal.
 */
import { useMutation } from '@tanstack/react-query';
import { useEffect, useId, useLayoutEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { chatContract } from '@otog/schemas/api/chat';
import { checkChatMessage, CHAT_EMPTY_MESSAGE, REALTIME_EVENTS } from '@otog/schemas/common/chat';
import { Button } from '../../components/ui/Button.tsx';
import { Dialog } from '../../components/ui/Dialog.tsx';
import { SendIcon, TrashIcon } from '../../components/ui/icons.tsx';
import { UserAvatar } from '../../components/UserAvatar.tsx';
import { callApi, errorMessage } from '../../lib/api.ts';
import { useRealtime, useRealtimeConnected, useRealtimeNeeded } from '../../lib/realtime.ts';
import { useSession } from '../../lib/session.tsx';
import { toast } from '../../lib/toast.tsx';
import { mergeFeed, useChatHistory, type ChatItem } from './chat-data.ts';
import { ChatText, formatChatHeader, formatChatTimestamp, isEmojiOnly, sameDay } from './format.tsx';
import { OnlineDialog, OnlineHoverCard } from './OnlineUsers.tsx';

/** The product name as the top bar shows it. */
const PRODUCT = 'OTOG';
/** Within this many pixels of the bottom the feed follows new messages. */
const STICK_PX = 80;

interface ServerReply {
  readonly ok?: boolean;
  readonly message?: string;
}

export interface ChatPanelProps {
  id: string;
  live: readonly ChatItem[];
  deleted: ReadonlySet<number>;
  onClose(): void;
  onDeleted(id: number): void;
}

export default function ChatPanel({ id, live, deleted, onClose, onDeleted }: ChatPanelProps) {
  const titleId = useId();
  const [onlineOpen, setOnlineOpen] = useState(false);
  const connected = useRealtimeConnected();
  // The open chat keeps the channel up (a socket dropped at its token's expiry gets a new token).
  useRealtimeNeeded(true);

  return (
    <section id={id} className="chat-panel" role="dialog" aria-modal="false" aria-labelledby={titleId}>
      <header className="chat-header">
        <OnlineHoverCard placement="below">
          {(describedBy) => (
            <button type="button" id={titleId} className="chat-title" aria-haspopup="dialog" aria-describedby={describedBy} onClick={() => setOnlineOpen(true)}>
              {PRODUCT} Chat
            </button>
          )}
        </OnlineHoverCard>
        <button type="button" className="btn btn-ghost btn-icon btn-sm" aria-label="ปิดหน้าต่างแชท" title="ปิดหน้าต่างแชท" onClick={onClose}>
          ✕
        </button>
      </header>
      {connected ? null : (
        <p className="chat-status" role="status">
          <span className="spinner spinner-sm" aria-hidden /> กำลังเชื่อมต่อ...
        </p>
      )}
      <Feed live={live} deleted={deleted} onDeleted={onDeleted} />
      <ChatForm />
      {onlineOpen ? <OnlineDialog onClose={() => setOnlineOpen(false)} /> : null}
    </section>
  );
}

function Feed({ live, deleted, onDeleted }: { live: readonly ChatItem[]; deleted: ReadonlySet<number>; onDeleted(id: number): void }) {
  const { user, isAdmin } = useSession();
  const history = useChatHistory(true);
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = history;
  const pages = history.data?.pages;
  const items = useMemo(() => mergeFeed(pages?.flat() ?? [], live, deleted), [pages, live, deleted]);
  const [confirming, setConfirming] = useState<ChatItem | null>(null);

  const feed = useRef<HTMLDivElement>(null);
  const sentinel = useRef<HTMLDivElement>(null);
  /** The feed as it was drawn last: its ends and scroll state, to keep the reader's place. */
  const drawn = useRef<{ first?: number; last?: number; height: number; top: number; atBottom: boolean }>({ height: 0, top: 0, atBottom: true });

  useLayoutEffect(() => {
    const element = feed.current;
    if (!element || history.isPending) return;
    const before = drawn.current;
    const first = items[0]?.id;
    const last = items.at(-1)?.id;
    const newest = items.at(-1);
    if (before.last === undefined || (last !== before.last && (before.atBottom || newest?.user.id === user?.id))) {
      // First drawing, or a new message while at the bottom (or our own): show the newest.
      element.scrollTop = element.scrollHeight;
    } else if (first !== before.first && last === before.last) {
      // Older messages came in above: the same messages stay in view.
      element.scrollTop = before.top + (element.scrollHeight - before.height);
    }
    drawn.current = { first, last, height: element.scrollHeight, top: element.scrollTop, atBottom: element.scrollHeight - element.scrollTop - element.clientHeight <= STICK_PX };
  }, [items, history.isPending, user?.id]);

  const onScroll = () => {
    const element = feed.current;
    if (!element) return;
    drawn.current = { ...drawn.current, height: element.scrollHeight, top: element.scrollTop, atBottom: element.scrollHeight - element.scrollTop - element.clientHeight <= STICK_PX };
  };

  // The top sentinel in view loads the next older page (and again while it stays in view).
  useEffect(() => {
    const root = feed.current;
    const target = sentinel.current;
    if (!root || !target || !hasNextPage || isFetchingNextPage || typeof IntersectionObserver === 'undefined') return;
    const observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((entry) => entry.isIntersecting)) void fetchNextPage();
      },
      { root, rootMargin: '120px 0px 0px 0px' },
    );
    observer.observe(target);
    return () => observer.disconnect();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage, items.length]);

  return (
    <div ref={feed} className="chat-feed" onScroll={onScroll}>
      <div ref={sentinel} className="chat-sentinel">
        {history.isPending || isFetchingNextPage ? <span className="spinner spinner-sm" role="status" aria-label="กำลังโหลดข้อความ" /> : null}
      </div>
      {!history.isPending && items.length === 0 ? <p className="chat-empty">ยังไม่มีข้อความ เริ่มคุยกันเลย!</p> : null}
      <div role="log" aria-label="ข้อความแชท" aria-live="polite" className="chat-log">
        {items.map((item, index) => {
          const previous = items[index - 1];
          const next = items[index + 1];
          const header = !previous || !sameDay(previous.creationDate, item.creationDate);
          const nextHeader = !next || !sameDay(item.creationDate, next.creationDate);
          return (
            <ChatRow
              key={item.id}
              item={item}
              header={header}
              joinedAbove={!header && previous?.user.id === item.user.id}
              joinedBelow={!nextHeader && next?.user.id === item.user.id}
              own={item.user.id === user?.id}
              onDelete={isAdmin ? () => setConfirming(item) : undefined}
            />
          );
        })}
      </div>
      {confirming ? <ConfirmDelete item={confirming} onClose={() => setConfirming(null)} onDeleted={onDeleted} /> : null}
    </div>
  );
}

function ChatRow({ item, header, joinedAbove, joinedBelow, own, onDelete }: { item: ChatItem; header: boolean; joinedAbove: boolean; joinedBelow: boolean; own: boolean; onDelete?: (() => void) | undefined }) {
  const emoji = isEmojiOnly(item.message);
  const classes = ['chat-row', own ? 'chat-row-own' : 'chat-row-other', joinedAbove ? 'chat-joined-above' : '', joinedBelow ? 'chat-joined-below' : ''].filter(Boolean).join(' ');
  return (
    <>
      {header ? (
        <p className="chat-date">
          <time dateTime={item.creationDate}>{formatChatHeader(item.creationDate)}</time>
        </p>
      ) : null}
      <div className={classes} data-chat-id={item.id} data-user-id={item.user.id}>
        {own ? null : joinedBelow ? <span className="chat-avatar-space" aria-hidden /> : <UserAvatar userId={item.user.id} name={item.user.showName} size="sm" />}
        <div className="chat-body">
          {!own && !joinedAbove ? (
            <Link to={`/user/${item.user.id}`} className="chat-name">
              {item.user.showName}
            </Link>
          ) : null}
          <div className={emoji ? 'chat-emoji' : 'chat-bubble'} title={formatChatTimestamp(item.creationDate)}>
            {own || joinedAbove ? null : <span className="sr-only">{item.user.showName}: </span>}
            <ChatText message={item.message} />
          </div>
        </div>
        {onDelete ? (
          <button type="button" className="chat-delete" aria-label={`ลบข้อความของ ${item.user.showName}`} title="ลบข้อความ" onClick={onDelete}>
            <TrashIcon width={14} height={14} />
          </button>
        ) : null}
      </div>
    </>
  );
}

function ConfirmDelete({ item, onClose, onDeleted }: { item: ChatItem; onClose(): void; onDeleted(id: number): void }) {
  const remove = useMutation({
    mutationFn: () => callApi(chatContract.deleteChat, { params: { chatId: item.id } }),
    onSuccess: () => {
      onDeleted(item.id);
      toast.success('ลบข้อความแล้ว');
      onClose();
    },
    onError: (error) => toast.error(errorMessage(error, 'ลบข้อความไม่สำเร็จ')),
  });
  return (
    <Dialog
      open
      onClose={onClose}
      title="ลบข้อความ"
      size="sm"
      footer={
        <>
          <Button onClick={onClose}>ยกเลิก</Button>
          <Button variant="danger" loading={remove.isPending} onClick={() => remove.mutate()}>
            ลบ
          </Button>
        </>
      }
    >
      <p>ลบข้อความนี้ของ {item.user.showName} ออกจากแชทของทุกคน?</p>
      <blockquote className="chat-quote">{item.message}</blockquote>
    </Dialog>
  );
}

function ChatForm() {
  const realtime = useRealtime();
  const [text, setText] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const errorId = useId();

  useEffect(() => input.current?.focus(), []);

  const send = async (event: FormEvent) => {
    event.preventDefault();
    const checked = checkChatMessage(text);
    if (!checked.ok) {
      // An empty message is refused without words (OTOG's blank message); the others say why.
      setError(checked.reason === CHAT_EMPTY_MESSAGE ? null : checked.reason);
      return;
    }
    if (!realtime?.connected) {
      setError('ยังเชื่อมต่อแชทไม่ได้ กรุณาลองใหม่อีกครั้ง');
      return;
    }
    setError(null);
    setText('');
    setSending(true);
    try {
      const reply = await realtime.request<ServerReply>(REALTIME_EVENTS.chatServer, checked.message);
      if (reply?.ok === false) {
        setError(reply.message ?? 'ส่งข้อความไม่สำเร็จ');
        setText((current) => current || text);
      }
    } catch {
      setError('ส่งข้อความไม่สำเร็จ กรุณาลองใหม่อีกครั้ง');
      setText((current) => current || text);
    } finally {
      setSending(false);
      input.current?.focus();
    }
  };

  return (
    <form className="chat-form" onSubmit={(event) => void send(event)} noValidate>
      {error ? (
        <p id={errorId} className="chat-error" role="alert">
          {error}
        </p>
      ) : null}
      <div className="chat-form-row">
        <input
          ref={input}
          className="input chat-input"
          name="message"
          placeholder="ส่งข้อความ..."
          aria-label="ข้อความ"
          autoComplete="off"
          value={text}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? errorId : undefined}
          onChange={(event) => {
            setText(event.target.value);
            if (error) setError(null);
          }}
        />
        <button type="submit" className="btn btn-primary btn-icon btn-md chat-send" aria-label="ส่งข้อความ" title="ส่งข้อความ" disabled={sending}>
          <SendIcon />
        </button>
      </div>
    </form>
  );
}
