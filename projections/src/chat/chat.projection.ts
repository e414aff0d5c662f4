import { sql } from '@otog/platform/db/pool';
import { defineProjection } from '@otog/platform/runner/projection';
import { ChatMessageDeleted, ChatMessagePosted } from '@otog/schemas/events';

/** "chat message N changed": on a removal every open chat drops it (the gateway pushes `chat-deleted`). */
export const CHAT_NOTICE = 'chat';

/**
 * Chat messages as GET /chat pages them. A posted message is a row; a removed one leaves. Writes assign
 * values taken from the event, so a redelivered event leaves the table as it was.
 */
export const chatProjection = defineProjection({
  name: 'chat',
  version: 1,
  tables: ['messages'],
  async setup(tx, t) {
    await tx.query(sql.unsafe`CREATE TABLE IF NOT EXISTS ${t.messages} (
      id          integer     PRIMARY KEY,
      user_id     integer     NOT NULL,
      message     text        NOT NULL,
      created_at  timestamptz NOT NULL)`);
  },
  on: {
    async [ChatMessagePosted.type](tx, { data, occurredAt: at }, t) {
      await tx.query(sql.unsafe`
        INSERT INTO ${t.messages} (id, user_id, message, created_at) VALUES (${data.messageId}, ${data.userId}, ${data.message}, ${at})
        ON CONFLICT (id) DO UPDATE SET user_id = excluded.user_id, message = excluded.message, created_at = excluded.created_at`);
    },
    async [ChatMessageDeleted.type](tx, { data }, t, context) {
      await tx.query(sql.unsafe`DELETE FROM ${t.messages} WHERE id = ${data.messageId}`);
      context.notify({ topic: CHAT_NOTICE, key: String(data.messageId), data: { deleted: true } });
    },
  },
});
