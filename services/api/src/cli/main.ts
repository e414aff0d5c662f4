/** `npm run cli -- <command>`: operator commands (migrations, projection status, rebuild, cutover, drop-retired, skip). */
import { allProjections } from '@otog/projections';
import { otogEventRegistry } from '@otog/schemas/events';
import { createDbPool } from '@otog/platform/db/pool';
import { createNotificationListener } from '@otog/platform/db/listen';
import { migrate } from '@otog/platform/db/migrate';
import { createEventStore } from '@otog/platform/eventstore/event-store';
import { createLogger } from '@otog/platform/log/logger';
import { loadApiConfig } from '../config.ts';
import { runCli, usage, UsageError } from './cli.ts';
import { openCliDatabase } from './cli-database.ts';

const argv = process.argv.slice(2);
if (argv.length === 0 || argv.includes('--help') || argv.includes('-h')) {
  process.stdout.write(usage);
  process.exit(argv.length === 0 ? 2 : 0);
}
const config = loadApiConfig();
process.umask(0o077); // as npm start: what it creates in the data directory is private
const logger = createLogger({ name: 'otog-cli', level: config.LOG_LEVEL, destination: process.stderr });
const database = await openCliDatabase(config, logger);
const pool = await createDbPool(database.url);
const listener = createNotificationListener(database.url, logger);
let code: number;
try {
  code = await runCli(argv, {
    pool,
    store: createEventStore(pool, otogEventRegistry),
    listener,
    projections: allProjections,
    logger,
    out: process.stdout,
    progress: process.stderr,
    migrate: () => migrate(database.url),
  });
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  if (error instanceof UsageError) process.stderr.write(`\n${usage}`);
  code = error instanceof UsageError ? 2 : 1;
} finally {
  await listener.close();
  await pool.end();
  await database.close();
}
process.exit(code);
