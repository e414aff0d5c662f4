import type { FastifyInstance } from 'fastify';
import { announcementContract as contract } from '@otog/schemas/api/announcement';
import { caller, isAdmin } from '../../http/access.ts';
import { badRequest, forbidden } from '../../http/errors.ts';
import { serve } from '../../http/serve.ts';
import type { ApiDependencies } from '../../http/settings.ts';
import { changeAnnouncement, createAnnouncement } from './announcement-commands.ts';
import { announcementQueries } from './announcement-queries.ts';
import { listRefusal } from './announcement-state.ts';
import { assertContestExists } from '../contests/contest-lookup.ts';

/** OTOG's answer to a missing or empty value. */
function requiredValue(value: string | undefined): string {
  if (!value) throw badRequest('No value is sent');
  return value;
}

/** The announcement routes of spec section 7 (OTOG research §3.5). */
export async function announcementsRoutes(app: FastifyInstance, deps: ApiDependencies): Promise<void> {
  const queries = announcementQueries(deps);

  serve(app, contract.getAnnouncements, async (request) => {
    const { show, contestId } = request.query;
    const refusal = listRefusal(show, isAdmin(request.auth));
    if (refusal) throw forbidden(refusal);
    return queries.list({ contestId: contestId ?? null, shownOnly: show === true });
  });

  serve(app, contract.createAnnouncement, async (request) => {
    const admin = caller(request);
    const value = requiredValue(request.body?.value);
    const contestId = request.query.contestId ?? null;
    if (contestId !== null) await assertContestExists(deps.pool, contestId);
    return createAnnouncement(deps, admin.id, { value, contestId });
  });

  serve(app, contract.deleteAnnouncement, async (request) => {
    const { announcementId } = request.params;
    const { before } = await changeAnnouncement(deps, caller(request).id, announcementId, () => ({
      type: 'AnnouncementDeleted',
      data: { announcementId },
    }));
    return before;
  });

  serve(app, contract.showAnnouncement, async (request) => {
    const { announcementId } = request.params;
    const { show } = request.body;
    const { after } = await changeAnnouncement(deps, caller(request).id, announcementId, () => ({
      type: 'AnnouncementVisibilityChanged',
      data: { announcementId, show },
    }));
    return after!;
  });

  serve(app, contract.updateAnnouncement, async (request) => {
    const { announcementId } = request.params;
    const { show, contestId } = request.body;
    const value = requiredValue(request.body.value);
    if (contestId !== undefined && contestId !== null) await assertContestExists(deps.pool, contestId);
    const { after } = await changeAnnouncement(deps, caller(request).id, announcementId, () => ({
      type: 'AnnouncementUpdated',
      data: { announcementId, value, ...(show === undefined ? {} : { show }), ...(contestId === undefined ? {} : { contestId }) },
    }));
    return after!;
  });
}
