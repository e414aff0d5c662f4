import pg from 'pg';
import { migrate } from '@otog/platform/db/migrate';

export const TEMPLATE_DATABASE = 'otog_test_template';

/** Migrates a template database once; every test file clones it (see test-db.ts). */
export default async function setup(): Promise<void> {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is not set: run the suites through `npm test`, which starts Postgres');
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${TEMPLATE_DATABASE} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${TEMPLATE_DATABASE}`);
  } finally {
    await admin.end();
  }
  const templateUrl = new URL(url);
  templateUrl.pathname = `/${TEMPLATE_DATABASE}`;
  await migrate(templateUrl.toString());
}
