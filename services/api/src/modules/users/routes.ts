import type { FastifyInstance } from 'fastify';
import type { ApiDependencies } from '../../http/settings.ts';

/** The users routes of spec section 7. TODO(issue 4). */
export async function usersRoutes(_app: FastifyInstance, _deps: ApiDependencies): Promise<void> {}
