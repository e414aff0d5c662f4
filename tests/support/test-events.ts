import { z } from 'zod';
import { createEventRegistry, defineEvent, otogEvents, type EventDataOf, type OtogEventMap } from '@otog/schemas/events';

/** Events used only by the platform suites (the product's catalogue lives in schemas/events). */
/** The platform suites append test events with every kind of scope. */
const EVERY_KIND = ['user', 'contest', 'problem', 'announcement', 'chat'] as const;

export const CounterIncremented = defineEvent({
  type: 'CounterIncremented',
  scopes: EVERY_KIND,
  schema: z.object({ counter: z.string().min(1), by: z.number().int(), seq: z.number().int().nonnegative().optional() }).strict(),
});

/** Version 2 renamed `name` to `title`; v1 rows in the log are upcast on read. */
export const TaskRenamed = defineEvent({
  type: 'TaskRenamed',
  scopes: EVERY_KIND,
  version: 2,
  schema: z.object({ taskId: z.number().int().positive(), title: z.string().min(1) }).strict(),
  upcasters: {
    1: (v1) => {
      const { name, ...rest } = v1 as { name: string; taskId: number };
      return { ...rest, title: name };
    },
  },
});

/** The product's catalogue plus the test events, so product projections can run in the platform suites. */
export const testRegistry = createEventRegistry([...otogEvents, CounterIncremented, TaskRenamed]);

/** Each event type of testRegistry with its data, for typed test projections (projectionOver). */
export type TestEventMap = OtogEventMap & {
  CounterIncremented: EventDataOf<typeof CounterIncremented>;
  TaskRenamed: EventDataOf<typeof TaskRenamed>;
};
