export interface BenchContext {
  /** Superuser URL of the fsync=off bench cluster (one fresh database per benchmark is created on it). */
  readonly adminUrl: string;
  /** Superuser URL of the durable cluster (Postgres defaults), when it could be started. */
  readonly durableAdminUrl: string | undefined;
  readonly kafkaBrokers: string | undefined;
  readonly quick: boolean;
}
