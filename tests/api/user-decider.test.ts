/** The user decider, given/when/then (pure): the identity events of `user-<id>`; credentials never enter them. */
import { describe, expect, it } from 'vitest';
import { userDecider } from '@otog/api/modules/users/user-decider';
import { given } from '../support/decider.ts';

const scope = 'user:4';
const registered = { type: 'UserRegistered', scope, data: { userId: 4, username: 'somchai', showName: 'สมชาย', role: 'user' } };

describe('user decider', () => {
  it('registers once', () => {
    given(userDecider).when({ kind: 'register', userId: 4, username: 'somchai', showName: 'สมชาย', role: 'user' }).then([registered]);
    given(userDecider, [registered]).when({ kind: 'register', userId: 4, username: 'x', showName: 'x', role: 'user' }).thenRefused('User 4 exists');
  });

  it('folds the identity from registration, edits and show-name changes', () => {
    const state = given(userDecider, [
      registered,
      { type: 'UserUpdated', scope, data: { userId: 4, username: 'somchai2', showName: 'สมชาย', role: 'admin' } },
      { type: 'UserShowNameChanged', scope, data: { userId: 4, showName: 'ชาย' } },
      { type: 'UserPasswordChanged', scope, data: { userId: 4, changedBy: 1 } },
    ]).state;
    expect(state).toEqual({ username: 'somchai2', showName: 'ชาย', role: 'admin' });
  });

  it('edits, renames, resets the password and records an avatar of an existing user only', () => {
    given(userDecider, [registered])
      .when({ kind: 'update', userId: 4, username: 'somchai', showName: 'สมชาย', role: 'admin' })
      .then([{ type: 'UserUpdated', scope, data: { userId: 4, username: 'somchai', showName: 'สมชาย', role: 'admin' } }]);
    given(userDecider, [registered]).when({ kind: 'changeShowName', userId: 4, showName: 'ชาย' }).then([{ type: 'UserShowNameChanged', scope, data: { userId: 4, showName: 'ชาย' } }]);
    given(userDecider, [registered]).when({ kind: 'changePassword', userId: 4, changedBy: 1 }).then([{ type: 'UserPasswordChanged', scope, data: { userId: 4, changedBy: 1 } }]);
    given(userDecider, [registered])
      .when({ kind: 'setAvatar', userId: 4, largeHash: 'a'.repeat(64), smallHash: 'b'.repeat(64) })
      .then([{ type: 'UserAvatarUploaded', scope, data: { userId: 4, largeHash: 'a'.repeat(64), smallHash: 'b'.repeat(64) } }]);
    for (const command of [
      { kind: 'update', userId: 4, username: 'x', showName: 'x', role: 'user' },
      { kind: 'changeShowName', userId: 4, showName: 'x' },
      { kind: 'changePassword', userId: 4, changedBy: null },
    ] as const) {
      given(userDecider).when(command).thenRefused('Not Found');
    }
  });
});
