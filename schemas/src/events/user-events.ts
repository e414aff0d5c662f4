import { z } from 'zod';
import { defineEvent } from './registry.ts';

const id = z.number().int().positive();
const role = z.enum(['user', 'admin']);

/**
 * Users: stream `user-<userId>`, scope `user:<userId>`. Credentials (password hashes, refresh tokens) are
 * command-side rows only and never enter the log: the log is permanent, secrets must be erasable.
 */
export const UserRegistered = defineEvent({
  type: 'UserRegistered',
  scopes: ['user'],
  schema: z.object({ userId: id, username: z.string().max(255), showName: z.string().max(255), role }).strict(),
});

/** An admin's edit (PUT /user/{id}): the new identity fields. */
export const UserUpdated = defineEvent({
  type: 'UserUpdated',
  scopes: ['user'],
  schema: z.object({ userId: id, username: z.string().max(255), showName: z.string().max(255), role }).strict(),
});

export const UserShowNameChanged = defineEvent({
  type: 'UserShowNameChanged',
  scopes: ['user'],
  schema: z.object({ userId: id, showName: z.string().max(255) }).strict(),
});

/** The password changed (by an admin); the hash itself stays in the accounts table. */
export const UserPasswordChanged = defineEvent({
  type: 'UserPasswordChanged',
  scopes: ['user'],
  schema: z.object({ userId: id, changedBy: id.nullable() }).strict(),
});

/** A new avatar: sha256 of the 320 px and the 32 px JPEG in the object store. */
export const UserAvatarUploaded = defineEvent({
  type: 'UserAvatarUploaded',
  scopes: ['user'],
  schema: z
    .object({ userId: id, largeHash: z.string().regex(/^[0-9a-f]{64}$/), smallHash: z.string().regex(/^[0-9a-f]{64}$/) })
    .strict(),
});

export const userEvents = [UserRegistered, UserUpdated, UserShowNameChanged, UserPasswordChanged, UserAvatarUploaded] as const;
