/**
 * The spec's User group (admin list, online list, profile, admin edit, show-name change) and the avatar
 * upload and images that replace OTOG's Firebase storage.
 */
import type { FastifyInstance } from 'fastify';
import { createRatingQueries } from '@otog/projections';
import { userContract, AVATAR_MAX_BYTES } from '@otog/schemas/api/user';
import { caller, isAdmin, type AuthUser } from '../../http/access.ts';
import { badRequest, forbidden, notFound } from '../../http/errors.ts';
import { readMultipart } from '../../http/multipart.ts';
import { serve } from '../../http/serve.ts';
import type { ApiDependencies } from '../../http/settings.ts';
import { changePassword, changeShowName, findAccount, findAvatar, listAccounts, setAvatar, summariesOf, toSummary, unusedAvatarFiles, updateAccount } from './accounts.ts';
import { parseAvatarFile, renderAvatar } from './avatar.ts';

/** Own account, or an admin (OTOG's rule for show names; ours for avatars too). */
function assertSelfOrAdmin(user: AuthUser, userId: number): void {
  if (user.id !== userId && !isAdmin(user)) throw forbidden('Forbidden');
}

export async function usersRoutes(app: FastifyInstance, deps: ApiDependencies): Promise<void> {
  const ratings = createRatingQueries(deps.pool);
  // Each costs an event (and an avatar two image files): per user, so one account cannot flood the log or the disk.
  const accountEditLimit = { rateLimit: { ...deps.settings.rateLimits.accountEdit, keyBy: 'user' as const } };
  serve(app, userContract.adminList, async (request) => listAccounts(deps.pool, request.query));

  // Each online user once, across every API node (the realtime channel keeps the presence).
  serve(app, userContract.online, async () => {
    const ids = (await deps.presence?.onlineUserIds()) ?? [];
    const users = await summariesOf(deps.pool, ids);
    return ids.flatMap((id) => {
      const user = users.get(id);
      return user ? [user] : [];
    });
  });

  serve(app, userContract.profile, async (request) => {
    const account = await findAccount(deps.pool, { id: request.params.userId });
    if (!account) throw notFound('Not Found');
    const rated = await ratings.history(account.id);
    return {
      ...toSummary(account),
      creationDate: account.createdAt,
      userContest: rated.map((row) => ({ rank: row.rank, ratingAfterUpdate: row.rating, contest: { id: row.contestId, name: row.name, timeStart: row.timeStart } })),
    };
  });

  serve(app, userContract.ratingHistory, async (request) => {
    if (!(await findAccount(deps.pool, { id: request.params.userId }))) throw notFound('Not Found');
    return ratings.history(request.params.userId);
  });

  serve(app, userContract.update, async (request) => {
    const actor = caller(request).id;
    const { userId } = request.params;
    const { password, ...fields } = request.body;
    // OTOG: a password in the form means "reset the password" and nothing else.
    const account = password !== '' ? await changePassword(deps, userId, password, actor) : await updateAccount(deps, userId, fields, actor);
    return toSummary(account);
  });

  serve(app, userContract.updateShowName, async (request) => {
    const user = caller(request);
    assertSelfOrAdmin(user, request.params.userId);
    const account = await changeShowName(deps, request.params.userId, request.body.showName, user.id);
    return { showName: account.showName };
  }, accountEditLimit);

  serve(app, userContract.uploadAvatar, async (request) => {
    const user = caller(request);
    const { userId } = request.params;
    assertSelfOrAdmin(user, userId);
    const { files } = await readMultipart(request, { files: { file: AVATAR_MAX_BYTES }, maxFields: 5 });
    if (!files.file) throw badRequest('file is required (multipart field "file")');
    if (!(await findAccount(deps.pool, { id: userId }))) throw notFound('Not Found');
    const images = await renderAvatar(files.file.data);
    const before = await findAvatar(deps.pool, userId);
    const [large, small] = await Promise.all([deps.objects.put(images.large), deps.objects.put(images.small)]);
    await setAvatar(deps, userId, { large, small }, user.id);
    // The replaced files go, unless another account shows the same picture: uploads never pile up.
    const replaced = before ? [before.large, before.small].filter((hash) => hash !== large && hash !== small) : [];
    for (const hash of await unusedAvatarFiles(deps.pool, replaced)) await deps.objects.delete(hash);
    return { message: 'Upload avatar complete.' };
  }, accountEditLimit);

  serve(app, userContract.avatar, async (request, reply) => {
    const wanted = parseAvatarFile(request.params.file);
    const hashes = wanted ? await findAvatar(deps.pool, wanted.userId) : null;
    const hash = hashes && wanted ? (wanted.small ? hashes.small : hashes.large) : null;
    const bytes = hash ? await deps.objects.get(hash) : null;
    if (!hash || !bytes) throw notFound('No avatar');
    const etag = `"${hash}"`;
    // Short-lived cache, then revalidation by ETag: a new upload shows within a minute at the same URL.
    void reply.header('cache-control', 'public, max-age=60').header('etag', etag);
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    return reply.type('image/jpeg').send(bytes);
  });
}
