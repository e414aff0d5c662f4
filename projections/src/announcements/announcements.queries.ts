import { sql, type DatabasePool } from '@otog/platform/db/pool';
import { readModel } from '@otog/platform/runner/read-model';
import { AnnouncementSchema, type Announcement } from '@otog/schemas/api/announcement';
import { announcementsProjection } from './announcements.projection.ts';

const live = readModel({ a: announcementsProjection });

export type AnnouncementQueries = ReturnType<typeof announcementQueries>;

export function announcementQueries(pool: DatabasePool) {
  return {
    /** A contest's announcements (contestId) or the global ones (null), newest first. */
    async list(filter: { contestId: number | null; shownOnly: boolean }): Promise<Announcement[]> {
      const { a } = await live(pool);
      const contest = filter.contestId === null ? sql.fragment`contest_id IS NULL` : sql.fragment`contest_id = ${filter.contestId}`;
      const shown = filter.shownOnly ? sql.fragment`AND show` : sql.fragment``;
      return [
        ...(await pool.any(sql.type(AnnouncementSchema)`
          SELECT id, value, show, contest_id AS "contestId" FROM ${a.announcements}
          WHERE ${contest} ${shown}
          ORDER BY id DESC`)),
      ];
    },
  };
}
