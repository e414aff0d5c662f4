/**
 * [ours] GET /admin/projections: every projection slot against the head of the log, for the operators'
 * status page. Admin-only; read-only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '@otog/platform/db/pool';
import { allProjections } from '@otog/projections';
import { adminContract as contract, type ProjectionStatus } from '@otog/schemas/api/admin';
import { announcementContract } from '@otog/schemas/api/announcement';
import { until } from '../support/until.ts';
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

const status = () => stack.expectCall(contract.getProjectionStatus, 200, { as: admin });
const POSITION = /^\d+\/\d+$/;

describe('GET /admin/projections', () => {
  it('shows every projection of this code with a live, running slot that catches up with the log', async () => {
    await stack.expectCall(announcementContract.createAnnouncement, 201, { as: admin, body: { value: 'สถานะ' } });
    let answer: ProjectionStatus | undefined;
    await until(
      'every slot has folded the log',
      async () => {
        answer = await status();
        return answer.slots.every((slot) => slot.eventsBehind === 0);
      },
      10_000,
      50,
    );
    const { head, checkedAt, slots } = answer!;
    expect(head).toMatch(POSITION);
    expect(head).not.toBe('0/0');
    expect(Math.abs(Date.parse(checkedAt) - Date.now())).toBeLessThan(60_000);
    for (const definition of allProjections) {
      const live = slots.filter((slot) => slot.projection === definition.name && slot.state === 'live');
      expect(live, definition.name).toHaveLength(1);
      expect(live[0]).toMatchObject({
        codeVersion: definition.version,
        status: 'running',
        eventsBehind: 0,
        eventsBehindCapped: false,
        secondsBehind: 0,
        error: null,
        registered: true,
        manualCutover: false,
      });
      expect(live[0]!.generation).toBeGreaterThanOrEqual(1);
      expect(live[0]!.position).toMatch(POSITION);
      expect(live[0]!.updatedAt).not.toBeNull();
    }
    expect(new Set(slots.map((slot) => slot.projection))).toEqual(new Set(allProjections.map((p) => p.name)));
  });

  it('names a faulted slot with its error, and a slot no code here knows', async () => {
    // A slot of a projection this code does not have, stopped on an event: as an older deploy could leave one.
    await stack.deps.pool.query(sql.unsafe`
      INSERT INTO projection_slots (projection, version, code_version, state) VALUES ('ghost', 1, 1, 'live')`);
    await stack.deps.pool.query(sql.unsafe`
      INSERT INTO consumer_checkpoints (consumer, source, part, status, error)
      VALUES ('projection:ghost:v1', 'pglog', '*', 'faulted', ${JSON.stringify({ message: 'boom', eventId: 'e1' })}::jsonb)`);
    const ghost = (await status()).slots.find((slot) => slot.projection === 'ghost');
    expect(ghost).toMatchObject({ generation: 1, status: 'faulted', registered: false, position: '0/0', eventsBehindCapped: false });
    expect(JSON.parse(ghost!.error!)).toEqual({ message: 'boom', eventId: 'e1' });
    // Nothing folded: the whole log is behind it, the oldest event recorded a moment ago or more.
    expect(ghost!.eventsBehind).toBeGreaterThan(0);
    expect(ghost!.secondsBehind).toBeGreaterThanOrEqual(0);
    // Rebuilt with --no-cutover: the page says it waits for the operator.
    await stack.deps.pool.query(sql.unsafe`
      INSERT INTO projection_slots (projection, version, code_version, state, manual_cutover) VALUES ('ghost', 2, 1, 'building', true)`);
    expect((await status()).slots.find((slot) => slot.projection === 'ghost' && slot.generation === 2)).toMatchObject({ state: 'building', manualCutover: true });
  });

  it('is for admins only', async () => {
    expect(await stack.expectCall(contract.getProjectionStatus, 401, {})).toEqual({ message: 'Unauthorized' });
    expect(await stack.expectCall(contract.getProjectionStatus, 403, { as: user })).toEqual({ message: 'Forbidden' });
  });
});
