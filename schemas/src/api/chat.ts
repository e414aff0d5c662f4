/**
 * The chat routes of spec section 7 (OTOG research §3.4): history pages by id cursor, and [ours] an admin's
 * removal of a message. Messages are posted over the realtime channel (`chat-server`), not over HTTP.
 */
import { z } from 'zod';
import { cursorQuery, DateTimeSchema, defineRoute, errorResponses, IdSchema, UserSummarySchema } from './contract.ts';

/** A chat message as OTOG's GET /chat returns it. */
export const ChatMessageSchema = z.object({
  id: z.number().int(),
  message: z.string(),
  userId: z.number().int(),
  creationDate: DateTimeSchema,
  updateDate: DateTimeSchema,
  user: UserSummarySchema,
});
export type ChatMessage = z.infer<typeof ChatMessageSchema>;

/** OTOG's page size. */
export const CHAT_PAGE_DEFAULT = 25;

export const chatContract = {
  getChats: defineRoute({
    method: 'GET',
    path: '/chat',
    summary: 'Chat history, newest first: messages with id < offset (default: the newest), a page at a time',
    tags: ['Chat'],
    access: { role: 'any', offline: 'admin' },
    query: cursorQuery(CHAT_PAGE_DEFAULT, 100),
    responses: { 200: z.array(ChatMessageSchema), ...errorResponses(400, 401, 403) },
  }),
  deleteChat: defineRoute({
    method: 'DELETE',
    path: '/chat/:chatId',
    summary: '[ours] Remove a message for everyone (it disappears from every open chat); answers the removed message',
    tags: ['Chat'],
    access: { role: 'admin', offline: 'admin' },
    params: z.object({ chatId: IdSchema }),
    responses: { 200: ChatMessageSchema, ...errorResponses(400, 401, 403, 404, 409) },
  }),
} as const;
