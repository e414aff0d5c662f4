/**
 * Chat writes: a message is posted (over the realtime channel) and removed (by an admin), each an event on
 * the message's own stream `chat-<id>` in the one room's scope `chat:global`, so every reader sees the room
 * in one order.
 */
import { sql } from '@otog/platform/db/pool';
import { eventOf } from '@otog/platform/eventstore/command';
import { WrongExpectedVersionError } from '@otog/platform/eventstore/errors';
import { createChatQueries } from '@otog/projections';
import type { ChatMessage } from '@otog/schemas/api/chat';
import type { ChatPush } from '@otog/schemas/common/chat';
import { ChatMessageDeleted, ChatMessagePosted } from '@otog/schemas/events';
import type { AuthUser } from '../../http/access.ts';
import { conflict, notFound } from '../../http/errors.ts';
import { waitForProjection } from '../../http/read-models.ts';
import type { ApiDependencies } from '../../http/settings.ts';
import { findAccount } from '../users/accounts.ts';

export const CHAT_SCOPE = 'chat:global';
const chatStream = (messageId: number) => `chat-${messageId}`;

/** Appends a checked message and answers the push every signed-in socket gets. */
export async function postChatMessage(deps: Pick<ApiDependencies, 'pool' | 'store'>, user: AuthUser, message: string): Promise<ChatPush> {
  // The name and rating as they are now (the token's may be older than a show-name change).
  const author = (await findAccount(deps.pool, { id: user.id })) ?? user;
  const messageId = Number(await deps.pool.oneFirst(sql.unsafe`SELECT nextval('chat_ids')::int`));
  const occurredAt = new Date().toISOString();
  await deps.store.append(chatStream(messageId), [{ ...eventOf(ChatMessagePosted, { messageId, userId: user.id, message }, CHAT_SCOPE), occurredAt }], {
    expectedVersion: 'none',
  });
  return [messageId, message, occurredAt, [author.id, author.showName, author.rating]];
}

/** Removes a message for everyone; answers it as it was. */
export async function deleteChatMessage(deps: ApiDependencies, adminId: number, messageId: number): Promise<ChatMessage> {
  const message = await createChatQueries(deps.pool).find(messageId);
  if (!message) throw notFound('Message not found');
  let appended;
  try {
    appended = await deps.store.append(chatStream(messageId), [eventOf(ChatMessageDeleted, { messageId, deletedBy: adminId }, CHAT_SCOPE)], { expectedVersion: 1 });
  } catch (error) {
    if (error instanceof WrongExpectedVersionError) throw conflict('The message was removed at the same time');
    throw error;
  }
  await waitForProjection(deps, 'chat', appended, CHAT_SCOPE);
  return message;
}
