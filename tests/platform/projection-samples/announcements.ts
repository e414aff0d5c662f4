import type { SampleStreams } from './index.ts';

/** Sample streams for the announcements projection (see projection-redelivery.test.ts). */
export const announcementsSamples: SampleStreams = [];
