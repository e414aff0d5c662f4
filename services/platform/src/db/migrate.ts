import { fileURLToPath } from 'node:url';
import pg from 'pg';
import Postgrator from 'postgrator';

export const platformMigrationsDir = fileURLToPath(new URL('../../migrations', import.meta.url));

/** Any number from 1 to 2^31; all processes that migrate take it, so two starts never race. */
const MIGRATION_LOCK_KEY = 7_461_001;

export interface MigrationResult {
  applied: string[];
  version: number;
}

/**
 * Applies pending migrations from the given directories (files `NNN.do.name.sql`, numbered globally)
 * under a session advisory lock.
 */
export async function migrate(
  databaseUrl: string,
  directories: readonly string[] = [platformMigrationsDir],
): Promise<MigrationResult> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    const pattern = directories.length === 1 ? `${directories[0]}/*.sql` : `{${directories.join(',')}}/*.sql`;
    const postgrator = new Postgrator({
      migrationPattern: pattern,
      driver: 'pg',
      database: client.database ?? 'postgres',
      schemaTable: 'schema_migrations',
      execQuery: (query) => client.query(query),
    });
    const applied = await postgrator.migrate();
    const version = Number(await postgrator.getDatabaseVersion());
    return { applied: applied.map((m) => `${m.version}.${m.name}`), version };
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => undefined);
    await client.end();
  }
}
