import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { announcementContract as contract, type Announcement } from '@otog/schemas/api/announcement';
import { announcementDecider, foldAnnouncement, listRefusal } from '@otog/api/modules/announcements/announcement-state';
import { given } from '../support/decider.ts';
import { startStack, type Stack, type TestUser } from './support/stack.ts';

let stack: Stack;
let admin: TestUser;
let user: TestUser;

beforeAll(async () => {
  stack = await startStack();
  admin = await stack.createUser({ role: 'admin' });
  user = await stack.createUser();
});
afterAll(() => stack?.stop());

const create = (value: string) => stack.expectCall(contract.createAnnouncement, 201, { as: admin, body: { value } });
const listAll = (query: Record<string, string | number> = {}) => stack.expectCall(contract.getAnnouncements, 200, { as: admin, query });

/** A contest announcement made straight from events: no contest can exist yet, so the API refuses them. */
async function contestAnnouncement(announcementId: number, contestId: number, show: boolean): Promise<void> {
  const scope = `contest:${contestId}`;
  const appended = await stack.deps.store.append(`announcement-${announcementId}`, [
    { type: 'AnnouncementCreated', scope, data: { announcementId, value: `contest ${contestId} news`, contestId } },
    ...(show ? [{ type: 'AnnouncementVisibilityChanged', scope, data: { announcementId, show } }] : []),
  ]);
  await stack.deps.projections.waitFor('announcements', { ...appended.lastPosition, scope }, 10_000);
}

describe('POST /announcement', () => {
  it('creates a hidden global announcement (OTOG answered 500 here)', async () => {
    const value = JSON.stringify([{ type: 'heading-one', children: [{ text: 'ประกาศ' }] }]);
    const row = await create(value);
    expect(row).toEqual({ id: expect.any(Number), value, show: false, contestId: null });
    expect(await listAll()).toContainEqual(row);
  });

  it('refuses a missing or empty value with "No value is sent"', async () => {
    for (const body of [{}, { value: '' }, undefined]) {
      const answer = await stack.expectCall(contract.createAnnouncement, 400, { as: admin, body });
      expect(answer.message, JSON.stringify(body)).toBe('No value is sent');
    }
  });

  it('refuses a value that is not a string or is too long', async () => {
    await stack.expectCall(contract.createAnnouncement, 400, { as: admin, body: { value: 42 } });
    await stack.expectCall(contract.createAnnouncement, 400, { as: admin, body: { value: 'x'.repeat(100_001) } });
    expect((await create('y'.repeat(100_000))).value).toHaveLength(100_000);
  });

  it('answers 404 "Contest not found" for a contest that does not exist, and 400 for a malformed id', async () => {
    const before = await listAll();
    expect(await stack.expectCall(contract.createAnnouncement, 404, { as: admin, query: { contestId: 1 }, body: { value: 'x' } })).toEqual({
      message: 'Contest not found',
    });
    for (const contestId of ['abc', '0', '-1', '1.5', '2147483648']) {
      await stack.expectCall(contract.createAnnouncement, 400, { as: admin, query: { contestId }, body: { value: 'x' } });
    }
    expect(await listAll()).toEqual(before);
  });

  it('is for admins only', async () => {
    await stack.expectCall(contract.createAnnouncement, 401, { body: { value: 'x' } });
    await stack.expectCall(contract.createAnnouncement, 403, { as: user, body: { value: 'x' } });
  });
});

describe('GET /announcement', () => {
  let hidden: Announcement;
  let shown: Announcement;
  beforeAll(async () => {
    hidden = await create('hidden one');
    shown = await create('shown one');
    shown = await stack.expectCall(contract.showAnnouncement, 200, { as: admin, params: { announcementId: shown.id }, body: { show: true } });
  });

  it('gives everyone the shown global announcements, newest first', async () => {
    for (const as of [null, user, admin]) {
      const rows = await stack.expectCall(contract.getAnnouncements, 200, { as, query: { show: 'true' } });
      expect(rows).toContainEqual(shown);
      expect(rows.every((row) => row.show && row.contestId === null)).toBe(true);
      expect(rows.map((row) => row.id)).toEqual([...rows.map((row) => row.id)].sort((a, b) => b - a));
    }
    expect((await stack.expectCall(contract.getAnnouncements, 200, { query: { show: '1' } })).map((row) => row.id)).not.toContain(hidden.id);
  });

  it('lists hidden ones too for admins when show is not true', async () => {
    for (const query of [{}, { show: 'false' }, { show: '0' }] as Array<Record<string, string>>) {
      const rows = await listAll(query);
      expect(rows).toContainEqual(hidden);
      expect(rows).toContainEqual(shown);
      expect(rows.map((row) => row.id)).toEqual([...rows.map((row) => row.id)].sort((a, b) => b - a));
    }
  });

  it('refuses hidden announcements to non-admins with 403', async () => {
    for (const as of [null, user]) {
      for (const query of [{}, { show: 'false' }, { contestId: 3 }] as Array<Record<string, string | number>>) {
        expect(await stack.expectCall(contract.getAnnouncements, 403, { as, query })).toEqual({
          message: 'Only Admin can access hidden announcements',
        });
      }
    }
  });

  it('lists a contest’s announcements with contestId, and only those', async () => {
    await contestAnnouncement(900_001, 41, true);
    await contestAnnouncement(900_002, 41, false);
    await contestAnnouncement(900_003, 42, true);
    expect((await listAll({ contestId: 41 })).map((row) => row.id)).toEqual([900_002, 900_001]);
    const shownOnly = await stack.expectCall(contract.getAnnouncements, 200, { as: user, query: { contestId: 41, show: 'true' } });
    expect(shownOnly).toEqual([{ id: 900_001, value: 'contest 41 news', show: true, contestId: 41 }]);
    expect(await listAll({ contestId: 43 })).toEqual([]);
    expect((await listAll()).some((row) => row.contestId !== null)).toBe(false);
  });

  it('refuses malformed query values with 400', async () => {
    for (const query of [{ show: 'yes' }, { contestId: 'abc' }, { contestId: 0 }, { contestId: '1e309' }] as Array<Record<string, string | number>>) {
      const answer = await stack.expectCall(contract.getAnnouncements, 400, { as: admin, query });
      expect(answer.message).toMatch(/^querystring\./);
    }
  });

  it('refuses an invalid token with 401', async () => {
    await stack.expectCall(contract.getAnnouncements, 401, { as: 'not-a-token', query: { show: 'true' } });
  });
});

describe('PATCH /announcement/:announcementId', () => {
  it('shows and hides an announcement', async () => {
    const row = await create('toggle me');
    const params = { announcementId: row.id };
    expect(await stack.expectCall(contract.showAnnouncement, 200, { as: admin, params, body: { show: true } })).toEqual({ ...row, show: true });
    expect((await stack.expectCall(contract.getAnnouncements, 200, { query: { show: 'true' } })).map((r) => r.id)).toContain(row.id);
    expect(await stack.expectCall(contract.showAnnouncement, 200, { as: admin, params, body: { show: false } })).toEqual(row);
    expect((await stack.expectCall(contract.getAnnouncements, 200, { query: { show: 'true' } })).map((r) => r.id)).not.toContain(row.id);
  });

  it('answers 404 for an unknown announcement and 400 for bad input', async () => {
    expect(await stack.expectCall(contract.showAnnouncement, 404, { as: admin, params: { announcementId: 777_777 }, body: { show: true } })).toEqual({
      message: 'Announcement not found',
    });
    const row = await create('x');
    await stack.expectCall(contract.showAnnouncement, 400, { as: admin, params: { announcementId: 'abc' }, body: { show: true } });
    await stack.expectCall(contract.showAnnouncement, 400, { as: admin, params: { announcementId: row.id }, body: {} });
    await stack.expectCall(contract.showAnnouncement, 400, { as: admin, params: { announcementId: row.id }, body: { show: 'yes' } });
  });

  it('is for admins only', async () => {
    const row = await create('x');
    await stack.expectCall(contract.showAnnouncement, 401, { params: { announcementId: row.id }, body: { show: true } });
    await stack.expectCall(contract.showAnnouncement, 403, { as: user, params: { announcementId: row.id }, body: { show: true } });
  });
});

describe('PUT /announcement/:announcementId', () => {
  it('replaces the value, and the visibility when given', async () => {
    const row = await create('first');
    const params = { announcementId: row.id };
    expect(await stack.expectCall(contract.updateAnnouncement, 200, { as: admin, params, body: { value: 'second' } })).toEqual({
      ...row,
      value: 'second',
    });
    const updated = await stack.expectCall(contract.updateAnnouncement, 200, { as: admin, params, body: { value: 'third', show: true, contestId: null } });
    expect(updated).toEqual({ ...row, value: 'third', show: true });
    expect(await listAll()).toContainEqual(updated);
  });

  it('moves a contest announcement to global with contestId null', async () => {
    await contestAnnouncement(900_010, 44, true);
    const moved = await stack.expectCall(contract.updateAnnouncement, 200, {
      as: admin,
      params: { announcementId: 900_010 },
      body: { value: 'everyone', contestId: null },
    });
    expect(moved).toEqual({ id: 900_010, value: 'everyone', show: true, contestId: null });
    expect(await listAll({ contestId: 44 })).toEqual([]);
    expect(await listAll()).toContainEqual(moved);
  });

  it('answers 404 for an unknown announcement or contest, 400 for bad input', async () => {
    const row = await create('x');
    const params = { announcementId: row.id };
    await stack.expectCall(contract.updateAnnouncement, 404, { as: admin, params: { announcementId: 777_778 }, body: { value: 'v' } });
    expect(await stack.expectCall(contract.updateAnnouncement, 404, { as: admin, params, body: { value: 'v', contestId: 5 } })).toEqual({
      message: 'Contest not found',
    });
    expect(await stack.expectCall(contract.updateAnnouncement, 400, { as: admin, params, body: { value: '' } })).toEqual({ message: 'No value is sent' });
    await stack.expectCall(contract.updateAnnouncement, 400, { as: admin, params, body: {} });
    await stack.expectCall(contract.updateAnnouncement, 400, { as: admin, params, body: { value: 'v', show: 'true' } });
    await stack.expectCall(contract.updateAnnouncement, 400, { as: admin, params, body: { value: 'v', contestId: -3 } });
    await stack.expectCall(contract.updateAnnouncement, 400, { as: admin, params: { announcementId: -1 }, body: { value: 'v' } });
    expect(await listAll()).toContainEqual(row);
  });

  it('is for admins only', async () => {
    const row = await create('x');
    await stack.expectCall(contract.updateAnnouncement, 401, { params: { announcementId: row.id }, body: { value: 'v' } });
    await stack.expectCall(contract.updateAnnouncement, 403, { as: user, params: { announcementId: row.id }, body: { value: 'v' } });
  });
});

describe('DELETE /announcement/:announcementId', () => {
  it('deletes and answers the deleted row; afterwards the announcement is gone', async () => {
    const row = await stack.expectCall(contract.showAnnouncement, 200, {
      as: admin,
      params: { announcementId: (await create('bye')).id },
      body: { show: true },
    });
    const params = { announcementId: row.id };
    expect(await stack.expectCall(contract.deleteAnnouncement, 200, { as: admin, params })).toEqual(row);
    expect((await listAll()).map((r) => r.id)).not.toContain(row.id);
    expect(await stack.expectCall(contract.deleteAnnouncement, 404, { as: admin, params })).toEqual({ message: 'Announcement not found' });
    await stack.expectCall(contract.showAnnouncement, 404, { as: admin, params, body: { show: true } });
    await stack.expectCall(contract.updateAnnouncement, 404, { as: admin, params, body: { value: 'again' } });
  });

  it('answers 404 for an unknown id, 400 for a malformed one', async () => {
    await stack.expectCall(contract.deleteAnnouncement, 404, { as: admin, params: { announcementId: 2_147_483_647 } });
    for (const announcementId of ['abc', '0', '2147483648', '1.5']) {
      await stack.expectCall(contract.deleteAnnouncement, 400, { as: admin, params: { announcementId } });
    }
  });

  it('is for admins only', async () => {
    const row = await create('x');
    await stack.expectCall(contract.deleteAnnouncement, 401, { params: { announcementId: row.id } });
    await stack.expectCall(contract.deleteAnnouncement, 403, { as: user, params: { announcementId: row.id } });
    expect(await listAll()).toContainEqual(row);
  });
});

describe('concurrent changes', () => {
  it('applies every one of many simultaneous edits of one announcement, in some order', async () => {
    const row = await create('start');
    const params = { announcementId: row.id };
    const answers = await Promise.all(
      [true, false, true].map((show, i) =>
        stack.call(contract.updateAnnouncement, { as: admin, params, body: { value: `edit ${i}`, show } }),
      ),
    );
    // A lost optimistic-concurrency race is retried; only a run of losses answers 409.
    for (const answer of answers) expect([200, 409]).toContain(answer.statusCode);
    const events = await stack.deps.store.readStream(`announcement-${row.id}`);
    expect(events.length).toBe(1 + answers.filter((a) => a.statusCode === 200).length);
    expect(new Set(events.map((e) => e.scope))).toEqual(new Set(['announcement:global']));
  });
});

describe('announcement rules (pure)', () => {
  const created = { type: 'AnnouncementCreated', scope: 'contest:3', data: { announcementId: 1, value: 'a', contestId: 3 } };

  it('folds a stream, keeping the creation scope', () => {
    expect(given(announcementDecider, [created]).state).toEqual({ row: { id: 1, value: 'a', show: false, contestId: 3 }, scope: 'contest:3' });
    const state = foldAnnouncement([
      created,
      { type: 'AnnouncementVisibilityChanged', scope: 'contest:3', data: { announcementId: 1, show: true } },
      { type: 'AnnouncementUpdated', scope: 'contest:3', data: { announcementId: 1, value: 'b', contestId: null } },
    ]);
    expect(state).toEqual({ row: { id: 1, value: 'b', show: true, contestId: null }, scope: 'contest:3' });
    expect(foldAnnouncement([created, { type: 'AnnouncementDeleted', scope: 'contest:3', data: { announcementId: 1 } }])).toBeNull();
    expect(foldAnnouncement([{ type: 'AnnouncementUpdated', scope: 'contest:3', data: { announcementId: 1, value: 'x' } }])).toBeNull();
  });

  it('decides: create once, in the scope of its contest (or global)', () => {
    given(announcementDecider).when({ kind: 'create', announcementId: 1, value: 'a', contestId: 3 }).then([created]);
    given(announcementDecider)
      .when({ kind: 'create', announcementId: 2, value: 'b', contestId: null })
      .then([{ type: 'AnnouncementCreated', scope: 'announcement:global', data: { announcementId: 2, value: 'b', contestId: null } }]);
    given(announcementDecider, [created]).when({ kind: 'create', announcementId: 1, value: 'a', contestId: 3 }).thenRefused('Announcement 1 exists');
  });

  it('decides: changes keep the creation scope, even a move to global; a missing or deleted one is a 404', () => {
    given(announcementDecider, [created])
      .when({ kind: 'update', announcementId: 1, value: 'b', contestId: null })
      .then([{ type: 'AnnouncementUpdated', scope: 'contest:3', data: { announcementId: 1, value: 'b', contestId: null } }]);
    given(announcementDecider, [created])
      .when({ kind: 'update', announcementId: 1, value: 'c', show: true })
      .then([{ type: 'AnnouncementUpdated', scope: 'contest:3', data: { announcementId: 1, value: 'c', show: true } }]);
    given(announcementDecider, [created])
      .when({ kind: 'show', announcementId: 1, show: true })
      .then([{ type: 'AnnouncementVisibilityChanged', scope: 'contest:3', data: { announcementId: 1, show: true } }]);
    given(announcementDecider, [created]).when({ kind: 'delete', announcementId: 1 }).then([{ type: 'AnnouncementDeleted', scope: 'contest:3', data: { announcementId: 1 } }]);
    const deleted = { type: 'AnnouncementDeleted', scope: 'contest:3', data: { announcementId: 1 } };
    for (const command of [
      { kind: 'show', announcementId: 1, show: true },
      { kind: 'delete', announcementId: 1 },
      { kind: 'update', announcementId: 1, value: 'x' },
    ] as const) {
      given(announcementDecider, [created, deleted]).when(command).thenRefused('Announcement not found');
      given(announcementDecider).when(command).thenRefused('Announcement not found');
    }
  });

  it('lets only admins list hidden announcements', () => {
    expect(listRefusal(true, false)).toBeNull();
    expect(listRefusal(undefined, true)).toBeNull();
    expect(listRefusal(false, true)).toBeNull();
    expect(listRefusal(false, false)).toBe('Only Admin can access hidden announcements');
    expect(listRefusal(undefined, false)).toBe('Only Admin can access hidden announcements');
  });
});
