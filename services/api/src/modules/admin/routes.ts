import type { FastifyInstance } from 'fastify';
import { allProjections } from '@otog/projections';
import { adminContract as contract } from '@otog/schemas/api/admin';
import { serve } from '../../http/serve.ts';
import type { ApiDependencies } from '../../http/settings.ts';
import { readProjectionStatus } from './projection-status.ts';

/** [ours] The operator routes of the admin area (the access layer lets only admins through). */
export async function adminRoutes(app: FastifyInstance, deps: ApiDependencies): Promise<void> {
  serve(app, contract.getProjectionStatus, async () => readProjectionStatus(deps.pool, deps.store, allProjections, deps.kafka));
}
