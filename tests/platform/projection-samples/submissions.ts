import type { SampleStreams } from './index.ts';

/** Sample streams for the submissions projection (see projection-redelivery.test.ts). */
export const submissionsSamples: SampleStreams = [];
