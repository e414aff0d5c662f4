export * from './registry.ts';
export * from './scopes.ts';
export * from './judging-events.ts';
export * from './problem-events.ts';
export * from './user-events.ts';
export * from './announcement-events.ts';
export * from './contest-events.ts';
export * from './otog-events.ts';
