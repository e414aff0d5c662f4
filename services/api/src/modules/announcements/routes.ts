import type { FastifyInstance } from 'fastify';
import type { ApiDependencies } from '../../http/settings.ts';

/** The announcements routes of spec section 7. TODO(issue 4). */
export async function announcementsRoutes(_app: FastifyInstance, _deps: ApiDependencies): Promise<void> {}
