import type { FastifyInstance } from 'fastify';
import type { ApiDependencies } from '../../http/settings.ts';

/** The submissions routes of spec section 7. TODO(issue 4). */
export async function submissionsRoutes(_app: FastifyInstance, _deps: ApiDependencies): Promise<void> {}
