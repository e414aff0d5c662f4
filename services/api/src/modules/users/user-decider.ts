/**
 * The command side of a user's identity as a decider over the stream `user-<id>`. Credentials stay in the
 * accounts row (never in the log); the row is written in the same transaction as the events, and the
 * database's unique indexes still decide whether a name is taken.
 */
import { eventOf, isEvent, type Decider } from '@otog/platform/eventstore/command';
import type { Role } from '@otog/schemas/api/contract';
import { UserAvatarUploaded, UserPasswordChanged, UserRegistered, UserShowNameChanged, UserUpdated } from '@otog/schemas/events';
import { conflict, notFound } from '../../http/errors.ts';

/** null: no such user. */
export type UserState = { readonly username: string; readonly showName: string; readonly role: Role } | null;

export type UserCommand =
  | { readonly kind: 'register'; readonly userId: number; readonly username: string; readonly showName: string; readonly role: Role }
  | { readonly kind: 'update'; readonly userId: number; readonly username: string; readonly showName: string; readonly role: Role }
  | { readonly kind: 'changeShowName'; readonly userId: number; readonly showName: string }
  | { readonly kind: 'changePassword'; readonly userId: number; readonly changedBy: number | null }
  | { readonly kind: 'setAvatar'; readonly userId: number; readonly largeHash: string; readonly smallHash: string };

export const userStream = (userId: number): string => `user-${userId}`;
export const userScope = (userId: number): string => `user:${userId}`;

export const userDecider: Decider<UserState, UserCommand> = {
  initialState: null,
  types: new Set([UserRegistered.type, UserUpdated.type, UserShowNameChanged.type]),
  evolve(state, event) {
    if (isEvent(event, UserRegistered) || isEvent(event, UserUpdated)) {
      const { username, showName, role } = event.data;
      return { username, showName, role };
    }
    if (state && isEvent(event, UserShowNameChanged)) return { ...state, showName: event.data.showName };
    return state;
  },
  decide(command, state) {
    const { userId } = command;
    const scope = userScope(userId);
    if (command.kind === 'register') {
      if (state) throw conflict(`User ${userId} exists`);
      const { username, showName, role } = command;
      return [eventOf(UserRegistered, { userId, username, showName, role }, scope)];
    }
    if (!state) throw notFound('Not Found');
    switch (command.kind) {
      case 'update': {
        const { username, showName, role } = command;
        return [eventOf(UserUpdated, { userId, username, showName, role }, scope)];
      }
      case 'changeShowName':
        return [eventOf(UserShowNameChanged, { userId, showName: command.showName }, scope)];
      case 'changePassword':
        return [eventOf(UserPasswordChanged, { userId, changedBy: command.changedBy }, scope)];
      case 'setAvatar':
        return [eventOf(UserAvatarUploaded, { userId, largeHash: command.largeHash, smallHash: command.smallHash }, scope)];
    }
  },
};
