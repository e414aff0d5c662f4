/** Reads of the chat read model: history pages with each message's author (from the accounts). */
import { sql, type DatabasePool } from '@otog/platform/db/pool';
import type { SlotTables } from '@otog/platform/runner/projection';
import { readModel } from '@otog/platform/runner/read-model';
import { ratingsProjection } from '../ratings/ratings.projection.ts';
import { ratingOf } from '../ratings/ratings.queries.ts';
import { ChatMessageSchema, type ChatMessage } from '@otog/schemas/api/chat';
import { chatProjection } from './chat.projection.ts';

const live = readModel({ c: chatProjection, r: ratingsProjection });

export type ChatQueries = ReturnType<typeof createChatQueries>;

export function createChatQueries(pool: DatabasePool) {
  const select = (ratings: SlotTables<'ratings'>['ratings']) => sql.fragment`
    SELECT m.id, m.message, m.user_id AS "userId", m.created_at AS "creationDate", m.created_at AS "updateDate",
      json_build_object('id', a.id, 'username', a.username, 'showName', a.show_name, 'role', a.role, 'rating', ${ratingOf(ratings, 'a')}) AS "user"`;
  return {
    /** Messages with id < `before` (all when absent), newest first. */
    async page(options: { before?: number | undefined; limit: number }): Promise<ChatMessage[]> {
      const { c, r } = await live(pool);
      const before = options.before === undefined ? sql.fragment`TRUE` : sql.fragment`m.id < ${options.before}`;
      return [
        ...(await pool.any(sql.type(ChatMessageSchema)`
          ${select(r.ratings)} FROM ${c.messages} m JOIN accounts a ON a.id = m.user_id
          WHERE ${before} ORDER BY m.id DESC LIMIT ${options.limit}`)),
      ];
    },

    async find(messageId: number): Promise<ChatMessage | null> {
      const { c, r } = await live(pool);
      return pool.maybeOne(sql.type(ChatMessageSchema)`${select(r.ratings)} FROM ${c.messages} m JOIN accounts a ON a.id = m.user_id WHERE m.id = ${messageId}`);
    },
  };
}
