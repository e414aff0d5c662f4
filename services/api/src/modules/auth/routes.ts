import type { FastifyInstance } from 'fastify';
import type { ApiDependencies } from '../../http/settings.ts';

/** The auth routes of spec section 7. TODO(issue 4). */
export async function authRoutes(_app: FastifyInstance, _deps: ApiDependencies): Promise<void> {}
