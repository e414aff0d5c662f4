import { announcementsProjection } from '@otog/projections';
import { sql } from '@otog/platform/db/pool';
import type { Announcement } from '@otog/schemas/api/announcement';
import { readModel } from '../../http/read-models.ts';
import type { ApiDependencies } from '../../http/settings.ts';

export type AnnouncementQueries = ReturnType<typeof announcementQueries>;

export function announcementQueries(deps: ApiDependencies) {
  const tables = readModel(deps.pool, announcementsProjection);
  return {
    /** A contest's announcements (contestId) or the global ones (null), newest first. */
    async list(filter: { contestId: number | null; shownOnly: boolean }): Promise<Announcement[]> {
      const t = await tables();
      const contest = filter.contestId === null ? sql.fragment`contest_id IS NULL` : sql.fragment`contest_id = ${filter.contestId}`;
      const shown = filter.shownOnly ? sql.fragment`AND show` : sql.fragment``;
      const rows = await deps.pool.any(sql.unsafe`
        SELECT id, value, show, contest_id AS "contestId" FROM ${t.announcements}
        WHERE ${contest} ${shown}
        ORDER BY id DESC`);
      return rows as unknown as Announcement[];
    },
  };
}
