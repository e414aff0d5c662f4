import { sql } from '@otog/platform/db/pool';
import { defineProjection } from '@otog/platform/runner/projection';
import { AnnouncementCreated, AnnouncementDeleted, AnnouncementUpdated, AnnouncementVisibilityChanged } from '@otog/schemas/events';

/**
 * Announcements as GET /announcement serves them, one row per live announcement (`contest_id` null = a
 * global one). AnnouncementCreated makes the row, hidden; the other events only change or remove it, so
 * an event for a deleted announcement changes nothing. Every write assigns values taken from the event,
 * so a redelivered event leaves the row as it was.
 */
export const announcementsProjection = defineProjection({
  name: 'announcements',
  version: 1,
  tables: ['announcements'],
  async setup(tx, t) {
    await tx.query(sql.unsafe`CREATE TABLE IF NOT EXISTS ${t.announcements} (
      id          integer     PRIMARY KEY,
      value       text        NOT NULL,
      show        boolean     NOT NULL DEFAULT false,
      contest_id  integer,
      created_at  timestamptz NOT NULL,
      updated_at  timestamptz NOT NULL)`);
    // Every read is "the announcements of one contest (or the global ones), newest first".
    const [table] = t.announcements.names;
    await tx.query(
      sql.unsafe`CREATE INDEX IF NOT EXISTS ${sql.identifier([`${table}_contest`])} ON ${t.announcements} (contest_id, id DESC)`,
    );
  },
  on: {
    async [AnnouncementCreated.type](tx, { data, occurredAt: at }, t) {
      await tx.query(sql.unsafe`
        INSERT INTO ${t.announcements} (id, value, show, contest_id, created_at, updated_at)
        VALUES (${data.announcementId}, ${data.value}, false, ${data.contestId}, ${at}, ${at})
        ON CONFLICT (id) DO UPDATE SET value = excluded.value, show = excluded.show, contest_id = excluded.contest_id,
          created_at = excluded.created_at, updated_at = excluded.updated_at`);
    },
    async [AnnouncementUpdated.type](tx, { data, occurredAt: at }, t) {
      // Absent fields keep their value; an explicit `contestId: null` makes the announcement global.
      const show = data.show === undefined ? sql.fragment`show` : sql.fragment`${data.show}`;
      const contest = data.contestId === undefined ? sql.fragment`contest_id` : sql.fragment`${data.contestId}::integer`;
      await tx.query(sql.unsafe`
        UPDATE ${t.announcements} SET value = ${data.value}, show = ${show}, contest_id = ${contest}, updated_at = ${at}
        WHERE id = ${data.announcementId}`);
    },
    async [AnnouncementVisibilityChanged.type](tx, { data, occurredAt: at }, t) {
      await tx.query(sql.unsafe`UPDATE ${t.announcements} SET show = ${data.show}, updated_at = ${at} WHERE id = ${data.announcementId}`);
    },
    async [AnnouncementDeleted.type](tx, { data }, t) {
      await tx.query(sql.unsafe`DELETE FROM ${t.announcements} WHERE id = ${data.announcementId}`);
    },
  },
});
