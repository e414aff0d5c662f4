import { z } from 'zod';
import { defineRoute } from './contract.ts';

/** The spec's App group. */
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
} as const;
