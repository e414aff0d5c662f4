import { sql } from '@otog/platform/db/pool';
import { defineProjection } from '@otog/platform/runner/projection';

/** Announcements (global and per contest). TODO(issue 4). */
export const announcementsProjection = defineProjection({
  name: 'announcements',
  version: 1,
  handles: ['AnnouncementCreated'],
  tables: ['announcements'],
  async setup(tx, t) {
    await tx.query(sql.unsafe`CREATE TABLE IF NOT EXISTS ${t.announcements} (id integer PRIMARY KEY)`);
  },
  async apply() {},
});
