export * from './registry.ts';
export * from './otog-events.ts';
