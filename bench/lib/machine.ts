/** What the figures were measured on: hardware, OS, Node, Postgres version and the settings that matter. */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import pg from 'pg';

export interface MachineInfo {
  readonly cpuModel: string;
  readonly cores: number;
  readonly ramGiB: number;
  readonly os: string;
  readonly kernel: string;
  readonly node: string;
}

export function machineInfo(): MachineInfo {
  let pretty = `${os.type()} ${os.release()}`;
  try {
    const match = /^PRETTY_NAME="?([^"\n]*)"?$/m.exec(readFileSync('/etc/os-release', 'utf8'));
    if (match?.[1]) pretty = match[1];
  } catch {
    // not Linux, or no os-release: keep os.type()
  }
  let debianVersion = '';
  try {
    debianVersion = readFileSync('/etc/debian_version', 'utf8').trim();
  } catch {
    // not Debian
  }
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cores: cpus.length,
    ramGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    os: debianVersion ? `${pretty} (${debianVersion})` : pretty,
    kernel: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
  };
}

export const loadAverage = (): string =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' / ');

export const SETTINGS = [
  'fsync',
  'synchronous_commit',
  'full_page_writes',
  'wal_level',
  'shared_buffers',
  'work_mem',
  'max_wal_size',
  'checkpoint_timeout',
  'max_connections',
] as const;

export interface PostgresInfo {
  readonly version: string;
  readonly settings: Readonly<Record<string, string>>;
}

export async function postgresInfo(url: string): Promise<PostgresInfo> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const version = (await client.query<{ v: string }>('SELECT version() AS v')).rows[0]!.v;
    const rows = (
      await client.query<{ name: string; setting: string; unit: string | null }>(
        'SELECT name, setting, unit FROM pg_settings WHERE name = ANY($1)',
        [SETTINGS],
      )
    ).rows;
    const settings: Record<string, string> = {};
    for (const row of rows) settings[row.name] = describeSetting(row.setting, row.unit);
    return { version: version.replace(/ on x86_64.*$/, '').replace(/,.*$/, ''), settings };
  } finally {
    await client.end();
  }
}

function describeSetting(setting: string, unit: string | null): string {
  if (unit === '8kB') return `${Math.round((Number(setting) * 8) / 1024)} MB`;
  if (unit === 'kB') return Number(setting) >= 1024 ? `${Math.round(Number(setting) / 1024)} MB` : `${setting} kB`;
  if (unit === 'MB') return `${setting} MB`;
  if (unit) return `${setting} ${unit}`;
  return setting;
}
