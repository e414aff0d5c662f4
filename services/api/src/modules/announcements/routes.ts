import type { FastifyInstance } from 'fastify';
import { announcementQueries } from '@otog/projections';
import { announcementContract as contract } from '@otog/schemas/api/announcement';
import { caller, isAdmin } from '../../http/access.ts';
import { badRequest, forbidden } from '../../http/errors.ts';
import { serve } from '../../http/serve.ts';
import type { ApiDependencies } from '../../http/settings.ts';
import { handleAnnouncement, nextAnnouncementId } from './announcement-commands.ts';
import { listRefusal } from './announcement-state.ts';
import { assertContestExists } from '../contests/contest-lookup.ts';

/** OTOG's answer to a missing or empty value. */
function requiredValue(value: string | undefined): string {
  if (!value) throw badRequest('No value is sent');
  return value;
}

/** The announcement routes of spec section 7 (OTOG research §3.5). */
export async function announcementsRoutes(app: FastifyInstance, deps: ApiDependencies): Promise<void> {
  const queries = announcementQueries(deps.pool);

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
    const { after } = await handleAnnouncement(deps, admin.id, { kind: 'create', announcementId: await nextAnnouncementId(deps), value, contestId });
    return after!.row;
  });

  serve(app, contract.deleteAnnouncement, async (request) => {
    const { announcementId } = request.params;
    const { before } = await handleAnnouncement(deps, caller(request).id, { kind: 'delete', announcementId });
    return before!.row;
  });

  serve(app, contract.showAnnouncement, async (request) => {
    const { announcementId } = request.params;
    const { show } = request.body;
    const { after } = await handleAnnouncement(deps, caller(request).id, { kind: 'show', announcementId, show });
    return after!.row;
  });

  serve(app, contract.updateAnnouncement, async (request) => {
    const { announcementId } = request.params;
    const { show, contestId } = request.body;
    const value = requiredValue(request.body.value);
    if (contestId !== undefined && contestId !== null) await assertContestExists(deps.pool, contestId);
    const { after } = await handleAnnouncement(deps, caller(request).id, { kind: 'update', announcementId, value, show, contestId });
    return after!.row;
  });
}
