export * from './events/index.ts';
