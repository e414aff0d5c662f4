/** The user in an access token's payload (the server signs id, username, showName, role, rating). */
import { UserSummarySchema, type UserSummary } from '@otog/schemas/api/contract';
import { z } from 'zod';

const PayloadSchema = UserSummarySchema.extend({ exp: z.number().optional() });

export function userFromToken(token: string): UserSummary | null {
  const payload = token.split('.')[1];
  if (!payload) return null;
  try {
    const json = new TextDecoder().decode(Uint8Array.from(atob(payload.replace(/-/g, '+').replace(/_/g, '/')), (c) => c.charCodeAt(0)));
    const parsed = PayloadSchema.safeParse(JSON.parse(json));
    if (!parsed.success) return null;
    const { exp: _exp, ...user } = parsed.data;
    return user;
  } catch {
    return null;
  }
}
