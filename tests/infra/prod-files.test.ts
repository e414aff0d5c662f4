/**
 * The deployment files of infra/prod checked against the code they deploy: the Compose file and the
 * Kubernetes manifests (every YAML document parsed), and the Grafana dashboard.
 *
 * - Every environment variable set for a server container (services/api/src/main.ts) is a key of
 *   apiConfigShape, every one of a judge container a key of workerConfigShape, and the values pass the
 *   real config checks.
 * - OTOG_ROLES names only roles of ROLES, and every role runs somewhere in Compose and in Kubernetes.
 * - Probes and health checks ask the health routes on the ports the container's environment sets.
 * - The Kafka topics created (Strimzi KafkaTopics, the Compose init script) are the topics of kafka.md,
 *   which are the code's: one per scope kind, plus the projectors' feeds.
 * - The dashboard queries only metrics the processes declare.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { apiConfigShape, readApiConfig, repoRoot, ROLES } from '@otog/api/config';
import { createProcessMetrics } from '@otog/api/ops/metrics';
import { readWorkerConfig, workerConfigShape } from '@otog/judge/config';
import { noticeFeeds } from '@otog/projections';
import { SCOPE_KINDS } from '@otog/schemas/events';

const prodDir = join(repoRoot, 'infra/prod');
const k8sDir = join(prodDir, 'k8s');

type Mapping = Record<string, unknown>;

const isMapping = (value: unknown): value is Mapping => typeof value === 'object' && value !== null && !Array.isArray(value);

function mapping(value: unknown, where: string): Mapping {
  if (value === undefined || value === null) return {};
  if (!isMapping(value)) throw new Error(`${where}: expected a mapping`);
  return value;
}

function sequence(value: unknown, where: string): unknown[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new Error(`${where}: expected a list`);
  return value;
}

function text(value: unknown, where: string): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new Error(`${where}: expected a string`);
}

/** Every document of a YAML file (merge keys on, as Compose reads them); a syntax error fails the load. */
function loadYaml(path: string): Mapping[] {
  const name = path.slice(prodDir.length + 1);
  return parseAllDocuments(readFileSync(path, 'utf8'), { merge: true }).map((document, index) => {
    const [error] = document.errors;
    if (error) throw new Error(`${name} (document ${index + 1}): ${error.message}`);
    return mapping(document.toJS(), `${name} (document ${index + 1})`);
  });
}

// ---------------------------------------------------------------------------------------------------
// What the files run, in one shape for both platforms.

interface EnvValue {
  /** The literal value, when the file says it (ConfigMaps and Secrets resolved). */
  readonly value: string | undefined;
  /** From a Secret, an interpolated variable without a default, or the pod: known only where it runs. */
  readonly external: boolean;
}

interface Probe {
  readonly kind: 'readiness' | 'liveness' | 'startup' | 'healthcheck';
  readonly path: string;
  readonly port: number;
}

interface OtogContainer {
  readonly platform: 'compose' | 'k8s';
  /** compose: the service; k8s: `Kind/name` of the workload. */
  readonly workload: string;
  readonly kind: string;
  readonly where: string;
  readonly program: 'server' | 'judge';
  readonly env: ReadonlyMap<string, EnvValue>;
  readonly probes: readonly Probe[];
  readonly replicas: number;
  /** Prometheus scrape annotations of the pod (k8s). */
  readonly scrape?: { readonly enabled: string | undefined; readonly port: string | undefined; readonly path: string | undefined };
  /** Secret volumes by mount path (k8s). */
  readonly secretMounts: ReadonlyMap<string, string>;
}

/** The entry point a command runs, or undefined for a program that is not OTOG's. */
function programOf(command: string): 'server' | 'judge' | undefined {
  if (command.includes('services/api/src/main.ts')) return 'server';
  if (command.includes('judge/src/main.ts') || command.includes('infra/prod/judge-entrypoint.sh')) return 'judge';
  return undefined;
}

const isOtogImage = (image: string) => /(^|\/)otog:|OTOG_IMAGE/.test(image);

// --- Compose

const composeFile = loadYaml(join(prodDir, 'compose.yaml'));
const compose = mapping(composeFile[0], 'compose.yaml');
const composeServices = mapping(compose.services, 'compose.yaml: services');

/** Compose's interpolation: `${NAME:-default}` gives the default; a variable without one is external. */
function interpolate(raw: string): EnvValue {
  let external = false;
  const value = raw.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (match, _name, operator?: string, rest?: string) => {
    if (match === '$$') return '$';
    if (operator === ':-' || operator === '-') return rest ?? '';
    external = true;
    return 'x';
  });
  return { value, external };
}

function composeEnv(service: Mapping, where: string): Map<string, EnvValue> {
  const env = new Map<string, EnvValue>();
  const raw = service.environment;
  if (Array.isArray(raw)) {
    for (const entry of raw) {
      const [name = '', ...rest] = text(entry, where).split('=');
      env.set(name, rest.length > 0 ? interpolate(rest.join('=')) : { value: undefined, external: true });
    }
  } else {
    for (const [name, value] of Object.entries(mapping(raw, `${where}: environment`))) {
      env.set(name, value === null ? { value: undefined, external: true } : interpolate(text(value, `${where}: ${name}`)));
    }
  }
  if (service.env_file !== undefined) throw new Error(`${where}: env_file hides the environment from this test; set it under environment`);
  return env;
}

/** `http://127.0.0.1:<port><path>` in a health check's command. */
function composeProbes(service: Mapping, where: string): Probe[] {
  const healthcheck = mapping(service.healthcheck, `${where}: healthcheck`);
  const test = Array.isArray(healthcheck.test) ? healthcheck.test.map((part) => text(part, where)).join(' ') : String(healthcheck.test ?? '');
  return [...test.matchAll(/http:\/\/(?:127\.0\.0\.1|localhost):(\d+)(\/[^'"\s)]*)/g)].map((match) => ({
    kind: 'healthcheck' as const,
    port: Number(match[1]),
    path: match[2] ?? '',
  }));
}

function composeContainers(): OtogContainer[] {
  const containers: OtogContainer[] = [];
  for (const [name, value] of Object.entries(composeServices)) {
    const where = `compose.yaml: services.${name}`;
    const service = mapping(value, where);
    const command = typeof service.command === 'string' ? service.command : sequence(service.command, where).map((part) => text(part, where)).join(' ');
    const program = programOf(command);
    const image = typeof service.image === 'string' ? service.image : '';
    const builds = mapping(service.build, where).dockerfile === 'infra/prod/Dockerfile';
    if (!program) {
      if (isOtogImage(image) || builds) throw new Error(`${where}: runs the OTOG image without naming its entry point in command`);
      continue;
    }
    containers.push({
      platform: 'compose',
      workload: name,
      kind: 'service',
      where,
      program,
      env: composeEnv(service, where),
      probes: composeProbes(service, where),
      replicas: Number(mapping(service.deploy, where).replicas ?? 1),
      secretMounts: new Map(),
    });
  }
  return containers;
}

// --- Kubernetes

const k8sFiles = readdirSync(k8sDir)
  .filter((file) => /\.ya?ml$/.test(file))
  .sort();
const k8sDocuments = k8sFiles
  .filter((file) => file !== 'kustomization.yaml')
  .flatMap((file) => loadYaml(join(k8sDir, file)).map((document) => ({ file, document })));

const resourcesOf = (kind: string) =>
  k8sDocuments.filter(({ document }) => document.kind === kind).map(({ file, document }) => ({ file, document, name: text(mapping(document.metadata, file).name, file) }));

const configMaps = new Map(resourcesOf('ConfigMap').map(({ name, document, file }) => [name, mapping(document.data, `${file}: ConfigMap/${name}`)]));
const secrets = new Map(
  resourcesOf('Secret').map(({ name, document, file }) => [name, { ...mapping(document.data, `${file}: Secret/${name}`), ...mapping(document.stringData, `${file}: Secret/${name}`) }]),
);

function k8sEnv(container: Mapping, podName: string, where: string): Map<string, EnvValue> {
  const env = new Map<string, EnvValue>();
  for (const source of sequence(container.envFrom, `${where}: envFrom`).map((entry) => mapping(entry, where))) {
    const configMap = mapping(source.configMapRef, where).name;
    const secret = mapping(source.secretRef, where).name;
    if (configMap !== undefined) {
      const data = configMaps.get(text(configMap, where));
      if (!data) throw new Error(`${where}: envFrom names ConfigMap ${String(configMap)}, which no manifest defines`);
      for (const [name, value] of Object.entries(data)) env.set(name, { value: text(value, where), external: false });
    }
    if (secret !== undefined) {
      const data = secrets.get(text(secret, where));
      if (!data) throw new Error(`${where}: envFrom names Secret ${String(secret)}, which no manifest defines`);
      for (const [name, value] of Object.entries(data)) env.set(name, { value: text(value, where), external: true });
    }
  }
  for (const entry of sequence(container.env, `${where}: env`).map((item) => mapping(item, where))) {
    const name = text(entry.name, where);
    if (entry.value !== undefined) {
      env.set(name, { value: text(entry.value, `${where}: ${name}`), external: false });
      continue;
    }
    const from = mapping(entry.valueFrom, `${where}: ${name}`);
    const configMapKey = mapping(from.configMapKeyRef, where);
    const secretKey = mapping(from.secretKeyRef, where);
    if (configMapKey.name !== undefined) {
      const value = configMaps.get(text(configMapKey.name, where))?.[text(configMapKey.key, where)];
      if (value === undefined) throw new Error(`${where}: ${name} reads a ConfigMap key no manifest defines`);
      env.set(name, { value: text(value, where), external: false });
    } else if (secretKey.name !== undefined) {
      const value = secrets.get(text(secretKey.name, where))?.[text(secretKey.key, where)];
      if (value === undefined) throw new Error(`${where}: ${name} reads a Secret key no manifest defines`);
      env.set(name, { value: text(value, where), external: true });
    } else if (mapping(from.fieldRef, where).fieldPath === 'metadata.name') {
      env.set(name, { value: podName, external: true });
    } else {
      env.set(name, { value: undefined, external: true });
    }
  }
  return env;
}

function k8sProbes(container: Mapping, where: string): Probe[] {
  const ports = new Map(sequence(container.ports, where).map((item) => mapping(item, where)).map((port) => [String(port.name), Number(port.containerPort)]));
  const probes: Probe[] = [];
  for (const kind of ['readiness', 'liveness', 'startup'] as const) {
    const probe = container[`${kind}Probe`];
    if (probe === undefined) continue;
    const httpGet = mapping(mapping(probe, where).httpGet, `${where}: ${kind}Probe`);
    if (httpGet.port === undefined) throw new Error(`${where}: ${kind}Probe is not an HTTP GET`);
    const port = typeof httpGet.port === 'number' ? httpGet.port : ports.get(text(httpGet.port, where));
    if (port === undefined) throw new Error(`${where}: ${kind}Probe names port ${String(httpGet.port)}, which the container does not declare`);
    probes.push({ kind, port, path: text(httpGet.path ?? '/', where) });
  }
  return probes;
}

const WORKLOAD_KINDS = new Set(['Deployment', 'StatefulSet', 'DaemonSet', 'Job']);

function k8sContainers(): OtogContainer[] {
  const containers: OtogContainer[] = [];
  for (const { file, document } of k8sDocuments) {
    const kind = String(document.kind);
    if (!WORKLOAD_KINDS.has(kind)) continue;
    const name = text(mapping(document.metadata, file).name, file);
    const workload = `${kind}/${name}`;
    const spec = mapping(document.spec, `${file}: ${workload}`);
    const template = mapping(spec.template, `${file}: ${workload}`);
    const podSpec = mapping(template.spec, `${file}: ${workload}`);
    const annotations = mapping(mapping(template.metadata, file).annotations, file);
    const secretVolumes = new Map(
      sequence(podSpec.volumes, file)
        .map((volume) => mapping(volume, file))
        .filter((volume) => volume.secret !== undefined)
        .map((volume) => [String(volume.name), text(mapping(volume.secret, file).secretName, file)]),
    );
    const replicas = Number(spec.replicas ?? 1);
    for (const item of [...sequence(podSpec.initContainers, file), ...sequence(podSpec.containers, file)]) {
      const container = mapping(item, file);
      const where = `k8s/${file}: ${workload} container ${String(container.name)}`;
      const command = [...sequence(container.command, where), ...sequence(container.args, where)].map((part) => text(part, where)).join(' ');
      const program = programOf(command);
      if (!program) {
        if (isOtogImage(String(container.image ?? ''))) throw new Error(`${where}: runs the OTOG image without naming its entry point in command`);
        continue;
      }
      const secretMounts = new Map<string, string>();
      for (const mount of sequence(container.volumeMounts, where).map((entry) => mapping(entry, where))) {
        const secret = secretVolumes.get(String(mount.name));
        if (secret) secretMounts.set(text(mount.mountPath, where), secret);
      }
      containers.push({
        platform: 'k8s',
        workload,
        kind,
        where,
        program,
        // A StatefulSet's first pod; a Deployment's pods have generated names.
        env: k8sEnv(container, kind === 'StatefulSet' ? `${name}-0` : `${name}-7d9f8b6c5d-x2x4q`, where),
        probes: k8sProbes(container, where),
        replicas,
        scrape: {
          enabled: annotations['prometheus.io/scrape'] as string | undefined,
          port: annotations['prometheus.io/port'] as string | undefined,
          path: annotations['prometheus.io/path'] as string | undefined,
        },
        secretMounts,
      });
    }
  }
  return containers;
}

const containers = [...composeContainers(), ...k8sContainers()];
const servers = containers.filter((container) => container.program === 'server');
const judges = containers.filter((container) => container.program === 'judge');

// ---------------------------------------------------------------------------------------------------
// The environment each container would start with.

/** Values a file cannot hold (secrets, tokens), stood in for by valid ones when the real checks run. */
const STAND_INS: Record<string, string> = {
  JWT_SECRET: 'j'.repeat(64),
  OTOG_JUDGE_TOKEN: `otogw_${'t'.repeat(43)}`,
};

function effectiveEnv(container: OtogContainer): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, { value, external }] of container.env) {
    const standIn = STAND_INS[name];
    if (standIn !== undefined && (external || !value)) env[name] = standIn;
    else if (value !== undefined) env[name] = value;
  }
  // The judge's token comes from the environment (Compose) or, on Kubernetes, from a file (judge-entrypoint.sh).
  if (container.program === 'judge' && !env.OTOG_JUDGE_TOKEN) env.OTOG_JUDGE_TOKEN = STAND_INS.OTOG_JUDGE_TOKEN!;
  return env;
}

const rolesOf = (container: OtogContainer): string[] =>
  (container.env.get('OTOG_ROLES')?.value ?? '')
    .split(',')
    .map((role) => role.trim())
    .filter((role) => role !== '');

const API_PATHS = { ready: '/api/health/ready', health: '/api/health' };
const OPS_PATHS = { ready: '/ready', health: '/health' };

describe('infra/prod: Compose and Kubernetes', () => {
  it('finds the server and judge containers of both platforms', () => {
    for (const platform of ['compose', 'k8s'] as const) {
      expect(servers.filter((container) => container.platform === platform).length, platform).toBeGreaterThanOrEqual(3);
      expect(judges.filter((container) => container.platform === platform).length, platform).toBeGreaterThanOrEqual(1);
    }
  });

  it('sets only environment variables the config schemas read', () => {
    const unknown: string[] = [];
    for (const container of containers) {
      const shape: object = container.program === 'server' ? apiConfigShape : workerConfigShape;
      for (const name of container.env.keys()) {
        if (!Object.hasOwn(shape, name)) unknown.push(`${container.where}: ${name} is not read by the ${container.program} (${container.program === 'server' ? 'apiConfigShape' : 'workerConfigShape'})`);
      }
    }
    expect(unknown).toEqual([]);
  });

  it('names only known roles in OTOG_ROLES, on every server container', () => {
    const problems: string[] = [];
    for (const container of servers) {
      const roles = rolesOf(container);
      if (container.env.get('OTOG_ROLES')?.external !== false || roles.length === 0) problems.push(`${container.where}: OTOG_ROLES is not set in the file`);
      for (const role of roles) if (!(ROLES as readonly string[]).includes(role)) problems.push(`${container.where}: unknown role ${role}`);
    }
    expect(problems).toEqual([]);
  });

  it('runs every role in Compose and in Kubernetes Deployments', () => {
    const compose = new Set(servers.filter((container) => container.platform === 'compose').flatMap(rolesOf));
    const deployments = new Set(servers.filter((container) => container.kind === 'Deployment').flatMap(rolesOf));
    expect(ROLES.filter((role) => !compose.has(role)), 'roles no Compose service runs').toEqual([]);
    expect(ROLES.filter((role) => !deployments.has(role)), 'roles no Deployment runs').toEqual([]);
  });

  it('gives each process an environment its config accepts, listening beyond loopback', () => {
    const problems: string[] = [];
    for (const container of containers) {
      const env = effectiveEnv(container);
      try {
        if (container.program === 'server') {
          const config = readApiConfig(env);
          if (config.HOST !== '0.0.0.0' && config.HOST !== '::') problems.push(`${container.where}: HOST ${config.HOST} is not reachable from the balancer or the kubelet`);
        } else {
          readWorkerConfig(env);
          if (container.platform === 'k8s' && env.OTOG_JUDGE_OPS_PORT && env.OTOG_JUDGE_OPS_HOST !== '0.0.0.0') {
            problems.push(`${container.where}: the kubelet probes the pod's address: OTOG_JUDGE_OPS_HOST must be 0.0.0.0`);
          }
        }
      } catch (error) {
        problems.push(`${container.where}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('probes the health routes on the ports the environment sets', () => {
    const problems: string[] = [];
    for (const container of containers) {
      const env = effectiveEnv(container);
      const routes = new Map<number, { ready: string; health: string }>();
      if (container.program === 'server') {
        const config = readApiConfig(env);
        if (config.OTOG_ROLES.includes('api')) routes.set(config.PORT, API_PATHS);
        if (config.OTOG_OPS_PORT !== undefined) routes.set(config.OTOG_OPS_PORT, OPS_PATHS);
      } else if (env.OTOG_JUDGE_OPS_PORT) {
        routes.set(Number(env.OTOG_JUDGE_OPS_PORT), OPS_PATHS);
      }
      const kinds = container.platform === 'compose' ? (['healthcheck'] as const) : (['readiness', 'liveness'] as const);
      for (const kind of kinds) {
        if (!container.probes.some((probe) => probe.kind === kind)) problems.push(`${container.where}: no ${kind} probe on an HTTP health route`);
      }
      for (const probe of container.probes) {
        const paths = routes.get(probe.port);
        if (!paths) {
          problems.push(`${container.where}: ${probe.kind} probe on port ${probe.port}, which no variable of the container sets (${[...routes.keys()].join(', ') || 'none'})`);
          continue;
        }
        const allowed = probe.kind === 'readiness' ? [paths.ready] : probe.kind === 'healthcheck' ? [paths.ready, paths.health] : [paths.health];
        if (!allowed.includes(probe.path)) problems.push(`${container.where}: ${probe.kind} probe asks ${probe.path} on port ${probe.port}; expected ${allowed.join(' or ')}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('has Prometheus scrape the ops port of every pod', () => {
    const problems: string[] = [];
    for (const container of containers.filter((item) => item.platform === 'k8s')) {
      const env = effectiveEnv(container);
      const opsPort = container.program === 'server' ? env.OTOG_OPS_PORT : env.OTOG_JUDGE_OPS_PORT;
      if (!opsPort) problems.push(`${container.where}: no ops port (metrics) set`);
      const { enabled, port, path } = container.scrape ?? {};
      if (enabled !== 'true' || port !== opsPort || path !== '/metrics') {
        problems.push(`${container.where}: scrape annotations ${JSON.stringify({ enabled, port, path })}, expected true, ${opsPort}, /metrics`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('points the URLs of the environment at services the files define', () => {
    const composeHosts = new Set(Object.keys(composeServices));
    const kafkaClusters = resourcesOf('Kafka').map(({ name }) => `${name}-kafka-bootstrap`);
    const k8sHosts = new Set([...resourcesOf('Service').map(({ name }) => name), ...kafkaClusters]);
    const problems: string[] = [];
    for (const container of containers) {
      const env = effectiveEnv(container);
      const hosts: string[] = [];
      for (const name of ['DATABASE_URL', 'REDIS_URL', 'OTOG_API_URL']) if (env[name]) hosts.push(new URL(env[name]).hostname);
      for (const broker of env.KAFKA_BROKERS?.split(',') ?? []) hosts.push(broker.split(':')[0] ?? '');
      const known = container.platform === 'compose' ? composeHosts : k8sHosts;
      // In-cluster names may carry the namespace and domain (otog-api.otog.svc.cluster.local).
      for (const host of hosts) if (!known.has(container.platform === 'k8s' ? (host.split('.')[0] ?? '') : host)) problems.push(`${container.where}: ${host} is not defined here`);
    }
    expect(problems).toEqual([]);
  });

  it('gives every judge pod its token', () => {
    const entrypoint = readFileSync(join(prodDir, 'judge-entrypoint.sh'), 'utf8');
    const tokenDir = /tokens=(\S+)/.exec(entrypoint)?.[1];
    expect(tokenDir).toBeDefined();
    const problems: string[] = [];
    for (const judge of judges.filter((container) => container.platform === 'k8s')) {
      if (judge.kind !== 'StatefulSet') {
        problems.push(`${judge.where}: judges need stable names (a StatefulSet): each worker has its own token`);
        continue;
      }
      const secret = judge.secretMounts.get(tokenDir!);
      const keys = Object.keys(secrets.get(secret ?? '') ?? {});
      const name = judge.workload.split('/')[1];
      for (let index = 0; index < judge.replicas; index++) {
        if (!keys.includes(`${name}-${index}`)) problems.push(`${judge.where}: no token for pod ${name}-${index} in a Secret mounted at ${tokenDir}`);
      }
    }
    for (const judge of judges.filter((container) => container.platform === 'compose')) {
      if (!judge.env.has('OTOG_JUDGE_TOKEN')) problems.push(`${judge.where}: OTOG_JUDGE_TOKEN is not set`);
    }
    const names = judges.filter((container) => container.platform === 'compose').map((judge) => judge.env.get('OTOG_JUDGE_WORKER')?.value);
    expect(new Set(names).size, 'each Compose judge has its own worker name').toBe(names.length);
    expect(problems).toEqual([]);
  });

  it('lists every manifest in the kustomization', () => {
    const kustomization = mapping(loadYaml(join(k8sDir, 'kustomization.yaml'))[0], 'kustomization.yaml');
    const resources = sequence(kustomization.resources, 'kustomization.yaml').map((entry) => text(entry, 'kustomization.yaml'));
    expect([...resources].sort()).toEqual(k8sFiles.filter((file) => file !== 'kustomization.yaml'));
  });
});

// ---------------------------------------------------------------------------------------------------
// Kafka topics.

interface TopicSpec {
  readonly partitions: number;
  readonly retentionMs: number;
}

const DAY_MS = 86_400_000;

/** The topic tables of kafka.md: the row's first `otog.*` topic, its partitions and its retention in days. */
function kafkaMdTopics(): Map<string, TopicSpec> {
  const topics = new Map<string, TopicSpec>();
  for (const line of readFileSync(join(prodDir, 'kafka.md'), 'utf8').split('\n')) {
    if (!line.startsWith('|')) continue;
    const cells = line.split('|').slice(1, -1).map((cell) => cell.trim());
    const topic = cells.map((cell) => /^`(otog\.[a-z0-9.-]+)`$/.exec(cell)?.[1]).find((name) => name !== undefined);
    if (!topic) continue;
    const partitions = Number(cells.at(-2));
    const days = /^(\d+) days?$/.exec(cells.at(-1) ?? '')?.[1];
    if (!Number.isInteger(partitions) || days === undefined) throw new Error(`kafka.md: cannot read partitions and retention of ${topic}`);
    topics.set(topic, { partitions, retentionMs: Number(days) * DAY_MS });
  }
  return topics;
}

const sortedEntries = (topics: ReadonlyMap<string, TopicSpec>) => [...topics.entries()].sort(([a], [b]) => a.localeCompare(b));

describe('infra/prod: Kafka topics', () => {
  const documented = kafkaMdTopics();

  it('kafka.md lists the topics of the code: one per scope kind, plus the feeds', () => {
    const code = [...Object.values(SCOPE_KINDS).map((kind) => kind.topic), ...noticeFeeds.map((feed) => feed.kafkaTopic)];
    expect([...documented.keys()].sort()).toEqual([...new Set(code)].sort());
  });

  it('Strimzi creates those topics, replicated as kafka.md says, on the cluster the servers use', () => {
    const [cluster, ...others] = resourcesOf('Kafka');
    expect(others).toEqual([]);
    expect(mapping(mapping(mapping(cluster?.document.spec, 'Kafka').kafka, 'Kafka').config, 'Kafka')['auto.create.topics.enable']).toBe(false);
    const created = new Map<string, TopicSpec>();
    const problems: string[] = [];
    for (const { document, name, file } of resourcesOf('KafkaTopic')) {
      const spec = mapping(document.spec, `${file}: KafkaTopic/${name}`);
      const config = mapping(spec.config, `${file}: KafkaTopic/${name}`);
      const topic = text(spec.topicName ?? name, file);
      created.set(topic, { partitions: Number(spec.partitions), retentionMs: Number(config['retention.ms']) });
      if (mapping(mapping(document.metadata, file).labels, file)['strimzi.io/cluster'] !== cluster?.name) problems.push(`${topic}: not labelled for the Kafka cluster ${cluster?.name}`);
      if (spec.replicas !== 3 || Number(config['min.insync.replicas']) !== 2) problems.push(`${topic}: expected replicas 3 and min.insync.replicas 2`);
      if (config['cleanup.policy'] !== 'delete') problems.push(`${topic}: cleanup.policy must be delete (event streams, not snapshots)`);
    }
    expect(problems).toEqual([]);
    expect(sortedEntries(created)).toEqual(sortedEntries(documented));
  });

  it('Compose creates the same topics, and no broker creates one on its own', () => {
    const init = mapping(composeServices['kafka-topics'], 'compose.yaml: kafka-topics');
    const script = sequence(init.entrypoint, 'kafka-topics: entrypoint').map((part) => text(part, 'kafka-topics')).join('\n');
    const created = new Map(
      [...script.matchAll(/^\s*create\s+(otog\.\S+)\s+(\d+)\s+(\d+)\s*$/gm)].map((match) => [match[1]!, { partitions: Number(match[2]), retentionMs: Number(match[3]) }]),
    );
    expect(sortedEntries(created)).toEqual(sortedEntries(documented));
    const kafka = mapping(composeServices.kafka, 'compose.yaml: kafka');
    expect(mapping(kafka.environment, 'kafka').KAFKA_AUTO_CREATE_TOPICS_ENABLE).toBe('false');
  });
});

// ---------------------------------------------------------------------------------------------------
// The Grafana dashboard.

type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary';

const METRIC_TYPES: readonly MetricType[] = ['counter', 'gauge', 'histogram', 'summary'];

function metricType(value: string): MetricType {
  const type = METRIC_TYPES.find((known) => known === value);
  if (!type) throw new Error(`unknown metric type ${value}`);
  return type;
}

/** Metric declarations in the server's and the judge's sources: `new Histogram({ name: ... })`, `addGauge({ name: ... })`. */
function declaredMetrics(): Map<string, MetricType> {
  const metrics = new Map<string, MetricType>();
  for (const dir of ['services/api/src', 'judge/src']) {
    const files = readdirSync(join(repoRoot, dir), { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'));
    for (const file of files) {
      const source = readFileSync(join(repoRoot, dir, file), 'utf8');
      for (const match of source.matchAll(/(?:new\s+(Histogram|Gauge|Counter|Summary)\s*\(|addGauge\s*\()\s*\{\s*name:\s*'([a-zA-Z_:][a-zA-Z0-9_:]*)'/g)) {
        metrics.set(match[2]!, metricType(match[1]?.toLowerCase() ?? 'gauge'));
      }
    }
  }
  return metrics;
}

/** What Prometheus stores for each metric: a histogram's _bucket, _sum and _count series, a summary's quantiles, _sum and _count. */
function seriesNames(metrics: ReadonlyMap<string, MetricType>): Set<string> {
  const names = new Set<string>();
  for (const [name, type] of metrics) {
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(name + suffix);
    else if (type === 'summary') for (const suffix of ['', '_sum', '_count']) names.add(name + suffix);
    else names.add(name);
  }
  return names;
}

const PROMQL_KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'inf', 'nan']);

/** Metric names a PromQL expression selects: identifiers outside strings, label matchers, ranges and label lists that do not call anything. */
function promqlMetricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names: string[] = [];
  for (const match of bare.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*/g)) {
    const before = bare[match.index - 1] ?? ' ';
    if (/[0-9.$]/.test(before)) continue;
    if (/^\s*\(/.test(bare.slice(match.index + match[0].length))) continue;
    if (PROMQL_KEYWORDS.has(match[0].toLowerCase())) continue;
    names.push(match[0]);
  }
  return names;
}

function dashboardQueries(): Array<{ panel: string; expr: string }> {
  const dashboard = mapping(JSON.parse(readFileSync(join(prodDir, 'grafana-dashboard.json'), 'utf8')), 'grafana-dashboard.json');
  const queries: Array<{ panel: string; expr: string }> = [];
  const visit = (panels: unknown) => {
    for (const item of sequence(panels, 'panels')) {
      const panel = mapping(item, 'panel');
      for (const target of sequence(panel.targets, 'targets')) {
        const expr = mapping(target, 'target').expr;
        if (expr !== undefined) queries.push({ panel: String(panel.title), expr: text(expr, String(panel.title)) });
      }
      visit(panel.panels);
    }
  };
  visit(dashboard.panels);
  return queries;
}

describe('infra/prod: Grafana dashboard', () => {
  const declared = declaredMetrics();

  it('reads the metric declarations of the sources', () => {
    const expected = [
      'otog_http_request_duration_seconds',
      'otog_judge_queue_wait_seconds',
      'otog_judge_queue_tasks',
      'otog_judge_queue_oldest_seconds',
      'otog_projection_lag_events',
      'otog_projection_lag_seconds',
      'otog_projection_faulted',
      'otog_relay_lag_events',
      'otog_relay_lag_seconds',
      'otog_realtime_sockets',
    ];
    expect(expected.filter((name) => !declared.has(name))).toEqual([]);
    expect(declared.get('otog_http_request_duration_seconds')).toBe('histogram');
  });

  it('finds the metric names of PromQL expressions', () => {
    expect(promqlMetricNames('histogram_quantile(0.99, sum by (le, route) (rate(a_bucket{job="x", route=~"/api.*"}[$__rate_interval])))')).toEqual(['a_bucket']);
    expect(promqlMetricNames('max by (state) (b) / on(state) group_left c offset 5m * 60 + 1e3')).toEqual(['b', 'c']);
  });

  it('queries only metrics the processes export', async () => {
    // Node's own metrics, as every process registers them (prom-client's defaults).
    const defaults = await createProcessMetrics({ roles: [...ROLES] }).registry.getMetricsAsJSON();
    const known = seriesNames(new Map<string, MetricType>([...defaults.map((metric) => [metric.name, metricType(String(metric.type))] as const), ...declared]));
    const queries = dashboardQueries();
    expect(queries.length).toBeGreaterThan(10);
    const problems: string[] = [];
    for (const { panel, expr } of queries) {
      const names = promqlMetricNames(expr);
      if (names.length === 0) problems.push(`${panel}: ${expr} selects no metric`);
      for (const name of names) if (!known.has(name)) problems.push(`${panel}: ${name} is not exported by any OTOG process`);
    }
    expect(problems).toEqual([]);
  });

  it('shows HTTP latency and rate, the judge queue, projection and relay lag, sockets and event loop lag', () => {
    const used = new Set(dashboardQueries().flatMap(({ expr }) => promqlMetricNames(expr)));
    const wanted = [
      'otog_http_request_duration_seconds_bucket',
      'otog_http_request_duration_seconds_count',
      'otog_judge_queue_tasks',
      'otog_judge_queue_wait_seconds_bucket',
      'otog_projection_lag_events',
      'otog_relay_lag_events',
      'otog_realtime_sockets',
      'nodejs_eventloop_lag_p99_seconds',
    ];
    expect(wanted.filter((name) => !used.has(name))).toEqual([]);
  });
});
