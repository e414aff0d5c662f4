import { z } from 'zod';
import { CHAT_MESSAGE_MAX } from '../common/chat.ts';
import { defineEvent } from './registry.ts';

const id = z.number().int().positive();

/** Chat: stream `chat-<messageId>`, scope `chat:global` (the site-wide room; every message in one order). */
export const ChatMessagePosted = defineEvent({
  type: 'ChatMessagePosted',
  scopes: ['chat'],
  schema: z.object({ messageId: id, userId: id, message: z.string().min(1).max(CHAT_MESSAGE_MAX) }).strict(),
});

/** An admin removed a message: it disappears for everyone. */
export const ChatMessageDeleted = defineEvent({
  type: 'ChatMessageDeleted',
  scopes: ['chat'],
  schema: z.object({ messageId: id, deletedBy: id }).strict(),
});

export const chatEvents = [ChatMessagePosted, ChatMessageDeleted] as const;
