/** Chat rules shared by the API, the realtime gateway and the web app. */

/** At most this many characters (after trimming) in one message. */
export const CHAT_MESSAGE_MAX = 150;
/** The spec's refusal of a message that is too long. */
export const CHAT_TOO_LONG_MESSAGE = `มีความยาวเกินที่กำหนดไว้ (${CHAT_MESSAGE_MAX})`;
/** A message that is empty once trimmed. */
export const CHAT_EMPTY_MESSAGE = 'ข้อความต้องไม่ว่าง';
/** A message that is not text. */
export const CHAT_NOT_TEXT_MESSAGE = 'ข้อความต้องเป็นตัวอักษร';
/** Too many messages in a short time. */
export const CHAT_TOO_FAST_MESSAGE = 'ส่งข้อความเร็วเกินไป กรุณารอสักครู่';

/**
 * Realtime event names. The client sends `chat-server`; the server pushes the rest. A client emitting a
 * server's name (or any name not listed as the client's) is ignored.
 */
export const REALTIME_EVENTS = {
  /** client → server: the message text (an optional ack gets `{ ok, message? }`). */
  chatServer: 'chat-server',
  /** server → signed-in sockets: `[id, message, creationDate, [userId, showName, rating]]`. */
  chat: 'chat',
  /** server → signed-in sockets, no payload: who is online changed (refetch GET /user/online). */
  online: 'online',
  /** [ours] server → signed-in sockets: `id` of a message an admin deleted. */
  chatDeleted: 'chat-deleted',
  /** [ours] server → the owner's and watchers' sockets: `{ id }` of a submission whose status or result changed. */
  submission: 'submission',
  /** [ours] server → a contest room: `{ id }` of a contest whose scoreboard changed (at most once a second). */
  scoreboard: 'scoreboard',
  /** [ours] client → server: watch (`{ submissionId }` or `{ contestId }`) or stop watching; an optional ack gets `{ ok }`. */
  watch: 'watch',
  unwatch: 'unwatch',
} as const;

/** Positional chat push: [id, message, creationDate, [userId, showName, rating]]. */
export type ChatPush = [number, string, string, [number, string, number | null]];

/** Checks a message as the server receives it: the trimmed text, or the reason it is refused. */
export function checkChatMessage(input: unknown): { ok: true; message: string } | { ok: false; reason: string } {
  if (typeof input !== 'string') return { ok: false, reason: CHAT_NOT_TEXT_MESSAGE };
  const message = input.trim();
  if (message.length === 0) return { ok: false, reason: CHAT_EMPTY_MESSAGE };
  if ([...message].length > CHAT_MESSAGE_MAX) return { ok: false, reason: CHAT_TOO_LONG_MESSAGE };
  return { ok: true, message };
}
