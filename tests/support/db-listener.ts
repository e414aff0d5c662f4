import { afterAll, beforeAll } from 'vitest';
import { createNotificationListener, type NotificationListener } from '@otog/platform/db/listen';
import { createTestDatabase, type TestDatabase } from './test-db.ts';

/** A fresh database and a LISTEN connection to it for one file's tests: made before them, closed and dropped after. */
export function databaseWithListener(): { readonly db: TestDatabase; readonly listener: NotificationListener } {
  let db: TestDatabase | undefined;
  let listener: NotificationListener | undefined;
  beforeAll(async () => {
    db = await createTestDatabase();
    listener = createNotificationListener(db.url);
  });
  afterAll(async () => {
    await listener?.close();
    await db?.drop();
  });
  const made = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the test database is made in beforeAll: use it inside a test');
    return value;
  };
  return {
    get db() {
      return made(db);
    },
    get listener() {
      return made(listener);
    },
  };
}
