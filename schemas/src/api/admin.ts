/**
 * [ours] Operator routes for the admin area: what `npm run cli -- projections status` prints, as JSON, so
 * the web app can show how far each projection slot is behind the event log. Admin-only, read-only.
 */
import { z } from 'zod';
import { DateTimeSchema, defineRoute, errorResponses } from './contract.ts';

/** Past this many unfolded events a slot's lag is reported as "at least" (counting the whole log every few seconds costs too much). */
export const PROJECTION_LAG_COUNT_MAX = 100_000;

/**
 * running: live and folding; rebuilding: a building slot catching up beside the live one; faulted: stopped
 * on an event it cannot fold; retired: replaced by a cutover, its tables kept for a while.
 */
export const PROJECTION_SLOT_STATUSES = ['running', 'rebuilding', 'faulted', 'retired'] as const;
export const ProjectionSlotStatusSchema = z.enum(PROJECTION_SLOT_STATUSES);
export type ProjectionSlotStatus = z.infer<typeof ProjectionSlotStatusSchema>;

export const ProjectionSlotSchema = z.object({
  projection: z.string(),
  /** The slot's number (its tables are rm_<projection>_v<generation>_*). */
  generation: z.number().int(),
  /** The version of the projection code that folds the slot. */
  codeVersion: z.number().int(),
  state: z.enum(['building', 'live', 'retired']),
  status: ProjectionSlotStatusSchema,
  /** The slot's checkpoint in the log, as `txid/gpos`. */
  position: z.string(),
  /** Events in the log after the checkpoint (null for a retired slot); capped at PROJECTION_LAG_COUNT_MAX. */
  eventsBehind: z.number().int().nonnegative().nullable(),
  /** True when eventsBehind hit the cap: the slot is at least that far behind. */
  eventsBehindCapped: z.boolean(),
  /** How long ago the oldest event the slot has not folded was recorded (0 when caught up; null when retired). */
  secondsBehind: z.number().nonnegative().nullable(),
  /** When the checkpoint last moved (or was created). */
  updatedAt: DateTimeSchema.nullable(),
  /** Why the slot faulted, as the runner recorded it (JSON text); null otherwise. */
  error: z.string().nullable(),
  /** False when this server's code has no projection of that name (left over from another version). */
  registered: z.boolean(),
  /** A building slot rebuilt with --no-cutover: caught up, it waits for an operator's `projections cutover`. */
  manualCutover: z.boolean().optional(),
});
export type ProjectionSlot = z.infer<typeof ProjectionSlotSchema>;

export const ProjectionStatusSchema = z.object({
  /** The head of the log, `txid/gpos` (0/0 when empty). */
  head: z.string(),
  /** The server's clock when it looked. */
  checkedAt: DateTimeSchema,
  slots: z.array(ProjectionSlotSchema),
});
export type ProjectionStatus = z.infer<typeof ProjectionStatusSchema>;

export const adminContract = {
  getProjectionStatus: defineRoute({
    method: 'GET',
    path: '/admin/projections',
    summary: '[ours] Every projection slot: code version, checkpoint, events and seconds behind the log head, status and last error',
    tags: ['Admin'],
    access: { role: 'admin', offline: 'admin' },
    responses: { 200: ProjectionStatusSchema, ...errorResponses(401, 403) },
  }),
} as const;
