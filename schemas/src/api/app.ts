import { z } from 'zod';
import { defineRoute } from './contract.ts';

/** Liveness: the process answers. Nothing is checked, so a slow database never gets a live node restarted. */
export const HealthSchema = z.object({ status: z.literal('ok') });
export type Health = z.infer<typeof HealthSchema>;

/** One dependency as a readiness probe saw it: no error text, which would tell an outsider about the network. */
export const CheckStatusSchema = z.enum(['ok', 'failing', 'timeout']);
export type CheckStatus = z.infer<typeof CheckStatusSchema>;

/**
 * Readiness: whether this process should get work now (a load balancer's or orchestrator's probe).
 * `starting` until its roles run, `stopping` once it drains, `failing` while a dependency check fails.
 */
export const ReadinessSchema = z.object({
  status: z.enum(['ready', 'starting', 'failing', 'stopping']),
  roles: z.array(z.string()),
  checks: z.record(z.string(), CheckStatusSchema),
});
export type Readiness = z.infer<typeof ReadinessSchema>;

/** A 503 from the readiness route: the report with an error body's `{message}`, as every error answer has. */
export const NotReadySchema = ReadinessSchema.extend({ message: z.string() });

/** The spec's App group, and the health probes [ours]. */
export const appContract = {
  time: defineRoute({
    method: 'GET',
    path: '/time',
    summary: 'The server time (ISO-8601), for clients to align contest clocks',
    tags: ['App'],
    access: { role: 'any', offline: 'public' },
    responses: { 200: z.string() },
  }),
  ping: defineRoute({
    method: 'GET',
    path: '/ping',
    summary: 'Liveness: answers a string',
    tags: ['App'],
    access: { role: 'any', offline: 'public' },
    responses: { 200: z.string() },
  }),
  health: defineRoute({
    method: 'GET',
    path: '/health',
    summary: 'Liveness [ours]: the node answers (no dependency is checked)',
    tags: ['App'],
    access: { role: 'any', offline: 'public' },
    responses: { 200: HealthSchema },
  }),
  ready: defineRoute({
    method: 'GET',
    path: '/health/ready',
    summary: 'Readiness [ours]: 200 when this node should get requests, 503 while it starts, stops or a dependency fails',
    tags: ['App'],
    access: { role: 'any', offline: 'public' },
    responses: { 200: ReadinessSchema, 503: NotReadySchema },
  }),
} as const;
