import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createDbPool, type DatabasePool } from '@otog/platform/db/pool';

const TEMPLATE_DATABASE = 'otog_test_template';

export interface TestDatabase {
  readonly url: string;
  readonly pool: DatabasePool;
  drop(): Promise<void>;
}

async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** A fresh, migrated database of its own for one test (cloned from the template in milliseconds). */
export async function createTestDatabase(options: { maximumPoolSize?: number } = {}): Promise<TestDatabase> {
  const name = `otog_t_${randomBytes(6).toString('hex')}`;
  // CREATE DATABASE ... TEMPLATE fails while another session is connected to the template; retry briefly.
  for (let attempt = 1; ; attempt += 1) {
    try {
      await adminQuery(`CREATE DATABASE ${name} TEMPLATE ${TEMPLATE_DATABASE}`);
      break;
    } catch (error) {
      if (attempt >= 20 || !String(error).includes('being accessed by other users')) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
    }
  }
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/${name}`;
  const pool = await createDbPool(url.toString(), { maximumPoolSize: options.maximumPoolSize ?? 12 });
  return {
    url: url.toString(),
    pool,
    async drop() {
      await pool.end();
      await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}
