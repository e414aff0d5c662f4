import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedAdmin } from '@otog/api/seed/seed-admin';
import { authContract, REFRESH_TOKEN_COOKIE } from '@otog/schemas/api/auth';
import { userContract } from '@otog/schemas/api/user';
import { startStack, type Stack, type TestUser } from './support/stack.ts';

let stack: Stack;
let admin: TestUser;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack?.stop());

const expectResponse: Stack['expectResponse'] = (contract, status, options) => stack.expectResponse(contract, status, options);

const login = (username: string, password: string) => stack.call(authContract.login, { body: { username, password } });

async function eventsOf(userId: number) {
  return (await stack.deps.store.readStream(`user-${userId}`)).map((event) => ({ type: event.type, data: event.data, actor: event.meta.actor }));
}

// Runs first, on the empty database of this file.
describe('seedAdmin', () => {
  it('creates the first admin once, with a generated password that signs in; later calls do nothing', async () => {
    const deps = { pool: stack.deps.pool, store: stack.deps.store };
    const first = await seedAdmin(deps, { username: 'root' });
    if (!first.created) throw new Error('expected the first admin to be created');
    expect(first).toMatchObject({ username: 'root', generated: true });
    expect(first.password).toMatch(/^[A-Za-z0-9]{16}$/);
    expect(await seedAdmin(deps, { username: 'root' })).toEqual({ created: false });
    expect(await seedAdmin(deps, { username: 'other', password: 'given-password' })).toEqual({ created: false });

    const signedIn = await stack.expectCall(authContract.login, 200, { body: { username: 'root', password: first.password } });
    expect(signedIn.user).toMatchObject({ username: 'root', showName: 'root', role: 'admin' });
    expect(await eventsOf(signedIn.user.id)).toEqual([
      { type: 'UserRegistered', data: { userId: signedIn.user.id, username: 'root', showName: 'root', role: 'admin' }, actor: signedIn.user.id },
    ]);
    admin = { ...signedIn.user, password: first.password, token: signedIn.accessToken };
  });
});

describe('GET /user/admin/list', () => {
  it('searches by exact id or by username/showName (any case), newest first, with the total', async () => {
    const tag = `lst${process.pid}`;
    const a = await stack.createUser({ username: `${tag}_alpha`, showName: `Alpha ${tag}` });
    const b = await stack.createUser({ username: `${tag}_beta`, showName: `Beta ${tag}` });
    const c = await stack.createUser({ username: `${tag}_gamma`, showName: `Gamma ${tag} ALPHA` });

    const byName = await stack.expectCall(userContract.adminList, 200, { as: admin, query: { search: `${tag.toUpperCase()}_ALP` } });
    expect(byName).toEqual({ data: [{ id: a.id, username: a.username, showName: a.showName, role: 'user', rating: null }], total: 1 });
    const nameOrShowName = await stack.expectCall(userContract.adminList, 200, { as: admin, query: { search: 'alpha' } });
    expect(nameOrShowName.data.map((user) => user.id)).toEqual([c.id, a.id]);

    const all = await stack.expectCall(userContract.adminList, 200, { as: admin, query: { search: tag } });
    expect(all).toMatchObject({ total: 3 });
    expect(all.data.map((user) => user.id)).toEqual([c.id, b.id, a.id]);
    const page = await stack.expectCall(userContract.adminList, 200, { as: admin, query: { search: tag, limit: 1, skip: 1 } });
    expect(page).toEqual({ data: [expect.objectContaining({ id: b.id })], total: 3 });
    expect(await stack.expectCall(userContract.adminList, 200, { as: admin, query: { search: tag, skip: 10 } })).toEqual({ data: [], total: 3 });

    const byId = await stack.expectCall(userContract.adminList, 200, { as: admin, query: { search: String(b.id) } });
    expect(byId.data.map((user) => user.id)).toContain(b.id);
    // LIKE wildcards are literal characters.
    expect(await stack.expectCall(userContract.adminList, 200, { as: admin, query: { search: '%' } })).toEqual({ data: [], total: 0 });

    const everyone = await stack.expectCall(userContract.adminList, 200, { as: admin });
    expect(everyone.data.length).toBeLessThanOrEqual(10);
    expect(everyone.total).toBeGreaterThanOrEqual(4);
    expect(JSON.stringify(everyone)).not.toMatch(/argon2|passwordHash/);
  });

  it('is admin-only and validates its query', async () => {
    const user = await stack.createUser();
    await stack.expectCall(userContract.adminList, 401, {});
    await stack.expectCall(userContract.adminList, 403, { as: user });
    expect((await stack.expectCall(userContract.adminList, 400, { as: admin, query: { limit: -1 } })).message).toMatch(/limit/);
    expect((await stack.expectCall(userContract.adminList, 400, { as: admin, query: { skip: 'x' } })).message).toMatch(/skip/);
    await stack.expectCall(userContract.adminList, 400, { as: admin, query: { search: 's'.repeat(201) } });
  });
});

describe('GET /user/online and /user/:userId/profile', () => {
  it('lists nobody online until the realtime channel exists', async () => {
    expect(await stack.expectCall(userContract.online, 200, {})).toEqual([]);
  });

  it("answers a profile in OTOG's shape, 404 for an unknown user and 400 for a bad id", async () => {
    const user = await stack.createUser();
    const profile = await stack.expectCall(userContract.profile, 200, { params: { userId: user.id } });
    expect(profile).toEqual({
      id: user.id,
      username: user.username,
      showName: user.showName,
      role: 'user',
      rating: null,
      creationDate: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      userContest: [],
    });
    expect(await stack.expectCall(userContract.profile, 404, { params: { userId: 2_000_000_000 } })).toEqual({ message: 'Not Found' });
    await stack.expectCall(userContract.profile, 400, { params: { userId: 'abc' } });
    await stack.expectCall(userContract.profile, 400, { params: { userId: 0 } });
    await stack.expectCall(userContract.profile, 400, { params: { userId: '99999999999' } });
  });
});

describe('PUT /user/:userId', () => {
  it('sets username, showName and role when no password is given, and never returns the hash', async () => {
    const user = await stack.createUser();
    const fields = { username: `renamed_${user.id}`, showName: `Renamed ${user.id}`, role: 'admin' as const };
    const updated = await stack.expectCall(userContract.update, 200, { as: admin, params: { userId: user.id }, body: { ...fields, password: '' } });
    expect(updated).toEqual({ id: user.id, ...fields, rating: null });
    const raw = await stack.call(userContract.update, { as: admin, params: { userId: user.id }, body: fields });
    expect(raw.statusCode).toBe(200);
    expect(Object.keys(raw.json()).sort()).toEqual(['id', 'rating', 'role', 'showName', 'username']);
    await stack.expectCall(authContract.login, 200, { body: { username: fields.username, password: user.password } });
    expect((await eventsOf(user.id)).slice(1)).toEqual([
      { type: 'UserUpdated', data: { userId: user.id, ...fields }, actor: admin.id },
      { type: 'UserUpdated', data: { userId: user.id, ...fields }, actor: admin.id },
    ]);
  });

  it('with a password changes only the password, and ends the sessions that knew the old one', async () => {
    const user = await stack.createUser();
    const loggedIn = await login(user.username, user.password);
    const rid = loggedIn.cookies.find((cookie) => cookie.name === REFRESH_TOKEN_COOKIE)!.value;

    const body = { username: `ignored_${user.id}`, showName: `Ignored ${user.id}`, role: 'admin' as const, password: 'brand-new-password' };
    const updated = await stack.expectCall(userContract.update, 200, { as: admin, params: { userId: user.id }, body });
    expect(updated).toEqual({ id: user.id, username: user.username, showName: user.showName, role: 'user', rating: null });

    await stack.expectCall(authContract.login, 401, { body: { username: user.username, password: user.password } });
    await stack.expectCall(authContract.login, 200, { body: { username: user.username, password: body.password } });
    await stack.expectCall(authContract.refreshToken, 401, { cookies: { [REFRESH_TOKEN_COOKIE]: rid } });
    const events = await eventsOf(user.id);
    expect(events.at(-1)).toEqual({ type: 'UserPasswordChanged', data: { userId: user.id, changedBy: admin.id }, actor: admin.id });
    expect(JSON.stringify(events)).not.toContain(body.password);
  });

  it('answers a taken name with 409, an unknown user with 404, bad bodies with 400, and non-admins with 401/403', async () => {
    const user = await stack.createUser();
    const other = await stack.createUser();
    const base = { username: user.username, showName: user.showName, role: 'user' as const, password: '' };
    const params = { userId: user.id };
    expect(await stack.expectCall(userContract.update, 409, { as: admin, params, body: { ...base, username: other.username } })).toEqual({ message: 'username was taken.' });
    expect(await stack.expectCall(userContract.update, 409, { as: admin, params, body: { ...base, showName: other.showName } })).toEqual({ message: 'showName was taken.' });
    expect(await stack.expectCall(userContract.update, 404, { as: admin, params: { userId: 2_000_000_000 }, body: base })).toEqual({ message: 'Not Found' });
    expect(await stack.expectCall(userContract.update, 404, { as: admin, params: { userId: 2_000_000_000 }, body: { ...base, password: 'new-password' } })).toEqual({
      message: 'Not Found',
    });
    for (const body of [{ ...base, role: 'root' }, { ...base, password: '123' }, { ...base, username: 'with space' }, { ...base, showName: '' }, { role: 'user' }]) {
      await stack.expectCall(userContract.update, 400, { as: admin, params, body });
    }
    await stack.expectCall(userContract.update, 401, { params, body: base });
    await stack.expectCall(userContract.update, 403, { as: user, params, body: base });
    // Nothing changed along the way.
    expect(await stack.expectCall(userContract.profile, 200, { params })).toMatchObject({ username: user.username, showName: user.showName, role: 'user' });
  });
});

describe('PATCH /user/:userId/name', () => {
  it('lets a user rename themselves and an admin rename anyone; others get 403; a taken name 409', async () => {
    const user = await stack.createUser();
    const other = await stack.createUser();
    const own = `Own ${user.id}`;
    expect(await stack.expectCall(userContract.updateShowName, 200, { as: user, params: { userId: user.id }, body: { showName: `  ${own} ` } })).toEqual({ showName: own });
    expect(await stack.expectCall(userContract.updateShowName, 403, { as: user, params: { userId: other.id }, body: { showName: 'Hijack' } })).toEqual({
      message: 'Forbidden',
    });
    expect(await stack.expectCall(userContract.updateShowName, 200, { as: admin, params: { userId: other.id }, body: { showName: `Admin set ${other.id}` } })).toEqual({
      showName: `Admin set ${other.id}`,
    });
    expect(await stack.expectCall(userContract.updateShowName, 409, { as: user, params: { userId: user.id }, body: { showName: `Admin set ${other.id}` } })).toEqual({
      message: 'showName was taken.',
    });
    expect(await stack.expectCall(userContract.updateShowName, 404, { as: admin, params: { userId: 2_000_000_000 }, body: { showName: 'Nobody' } })).toEqual({
      message: 'Not Found',
    });
    await stack.expectCall(userContract.updateShowName, 401, { params: { userId: user.id }, body: { showName: 'Anonymous' } });
    await stack.expectCall(userContract.updateShowName, 400, { as: user, params: { userId: user.id }, body: { showName: '' } });
    await stack.expectCall(userContract.updateShowName, 400, { as: user, params: { userId: user.id }, body: { showName: 'n'.repeat(256) } });

    expect((await stack.expectCall(userContract.profile, 200, { params: { userId: user.id } })).showName).toBe(own);
    expect((await eventsOf(user.id)).at(-1)).toEqual({ type: 'UserShowNameChanged', data: { userId: user.id, showName: own }, actor: user.id });
    expect((await eventsOf(other.id)).at(-1)).toEqual({ type: 'UserShowNameChanged', data: { userId: other.id, showName: `Admin set ${other.id}` }, actor: admin.id });
  });
});

describe('avatars', () => {
  const png = (width: number, height: number) =>
    sharp({ create: { width, height, channels: 4, background: { r: 200, g: 80, b: 30, alpha: 1 } } })
      .png()
      .toBuffer();
  const upload = (userId: number, as: TestUser | null, content: Uint8Array | string, filename = 'me.png') => ({
    as,
    params: { userId },
    form: { files: { file: { filename, content, contentType: 'image/png' } } },
  });

  it('crops an upload to 320x320 and 32x32 JPEGs, served at /images with an ETag', async () => {
    const user = await stack.createUser();
    expect(await stack.expectCall(userContract.uploadAvatar, 200, upload(user.id, user, await png(640, 400)))).toEqual({ message: 'Upload avatar complete.' });

    const hashes: string[] = [];
    for (const [file, size] of [[`${user.id}.jpeg`, 320], [`${user.id}_32.jpeg`, 32]] as const) {
      const { response } = await expectResponse(userContract.avatar, 200, { params: { file } });
      expect(response.headers['content-type']).toBe('image/jpeg');
      expect(response.headers['cache-control']).toMatch(/max-age=/);
      const metadata = await sharp(response.rawPayload).metadata();
      expect(metadata).toMatchObject({ format: 'jpeg', width: size, height: size });
      const etag = String(response.headers.etag);
      expect(etag).toMatch(/^"[0-9a-f]{64}"$/);
      hashes.push(etag.slice(1, -1));
      expect(await stack.objects.get(etag.slice(1, -1))).toEqual(response.rawPayload);
      // A client holding this version revalidates for free; an expired token cookie does not break an <img>.
      await expectResponse(userContract.avatar, 304, { params: { file }, headers: { 'if-none-match': etag } });
      await expectResponse(userContract.avatar, 200, { params: { file }, cookies: { accessToken: 'expired.or.forged' } });
    }
    expect((await eventsOf(user.id)).at(-1)).toEqual({ type: 'UserAvatarUploaded', data: { userId: user.id, largeHash: hashes[0], smallHash: hashes[1] }, actor: user.id });
  });

  it('a new avatar replaces the files of the old one, unless another account shows the same picture', async () => {
    const [first, twin] = [await stack.createUser(), await stack.createUser()];
    const hashesOf = async (userId: number) => {
      const hashes: string[] = [];
      for (const file of [`${userId}.jpeg`, `${userId}_32.jpeg`]) hashes.push(String((await expectResponse(userContract.avatar, 200, { params: { file } })).response.headers.etag).slice(1, -1));
      return hashes;
    };
    // Plain colours: a picture is its colour (every size crops and scales to the same JPEG).
    const colour = (r: number) => sharp({ create: { width: 64, height: 64, channels: 3, background: { r, g: 10, b: 200 } } }).png().toBuffer();
    const picture = await colour(1);
    await stack.expectCall(userContract.uploadAvatar, 200, upload(first.id, first, picture));
    await stack.expectCall(userContract.uploadAvatar, 200, upload(twin.id, twin, picture));
    const shared = await hashesOf(first.id);
    expect(await hashesOf(twin.id)).toEqual(shared);
    // first changes picture: the twin still shows the shared files.
    await stack.expectCall(userContract.uploadAvatar, 200, upload(first.id, first, await colour(2)));
    for (const hash of shared) expect(await stack.objects.has(hash)).toBe(true);
    // The twin changes too: nobody shows them any more, so they are gone.
    await stack.expectCall(userContract.uploadAvatar, 200, upload(twin.id, twin, await colour(3)));
    for (const hash of shared) expect(await stack.objects.has(hash)).toBe(false);
    for (const hash of [...(await hashesOf(first.id)), ...(await hashesOf(twin.id))]) expect(await stack.objects.has(hash)).toBe(true);
  });

  it('lets an admin upload for anyone, and refuses other users, non-images and oversized files', async () => {
    const user = await stack.createUser();
    const other = await stack.createUser();
    const image = await png(50, 50);
    await stack.expectCall(userContract.uploadAvatar, 403, upload(other.id, user, image));
    await stack.expectCall(userContract.uploadAvatar, 401, upload(other.id, null, image));
    await stack.expectCall(userContract.uploadAvatar, 200, upload(other.id, admin, image));
    expect((await eventsOf(other.id)).at(-1)).toMatchObject({ type: 'UserAvatarUploaded', actor: admin.id });
    await stack.expectCall(userContract.uploadAvatar, 404, upload(2_000_000_000, admin, image));

    expect((await stack.expectCall(userContract.uploadAvatar, 400, upload(user.id, user, 'just some text', 'me.png'))).message).toMatch(/not an image/);
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>';
    expect((await stack.expectCall(userContract.uploadAvatar, 400, upload(user.id, user, svg, 'me.svg'))).message).toMatch(/svg/);
    const truncated = (await png(100, 100)).subarray(0, 60);
    await stack.expectCall(userContract.uploadAvatar, 400, upload(user.id, user, truncated));
    await stack.expectCall(userContract.uploadAvatar, 400, { as: user, params: { userId: user.id }, form: { fields: { note: 'no file' } } });
    await stack.expectCall(userContract.uploadAvatar, 413, upload(user.id, user, new Uint8Array(5 * 1024 * 1024 + 1)));
    // None of that left an avatar behind.
    await stack.expectCall(userContract.avatar, 404, { params: { file: `${user.id}.jpeg` } });
  });

  it('answers 404 for a user without an avatar (the client shows its fallback) and 400 for other file names', async () => {
    const user = await stack.createUser();
    expect(await stack.expectCall(userContract.avatar, 404, { params: { file: `${user.id}.jpeg` } })).toEqual({ message: 'No avatar' });
    await stack.expectCall(userContract.avatar, 404, { params: { file: `${user.id}_32.jpeg` } });
    await stack.expectCall(userContract.avatar, 404, { params: { file: '9999999999.jpeg' } });
    for (const file of [`${user.id}.png`, `${user.id}_64.jpeg`, '0.jpeg', '..%2Fsecret.jpeg']) {
      await stack.expectCall(userContract.avatar, 400, { params: { file } });
    }
  });
});
