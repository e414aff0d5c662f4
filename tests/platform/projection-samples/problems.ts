import type { SampleStreams } from './index.ts';

/** Sample streams for the problems projection (see projection-redelivery.test.ts). */
export const problemsSamples: SampleStreams = [];
