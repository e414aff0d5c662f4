export * from './registry.ts';
export * from './judging-events.ts';
export * from './problem-events.ts';
export * from './otog-events.ts';
