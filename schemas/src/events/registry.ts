import { z } from 'zod';
import { scopeKindOf, type ScopeKind } from './scopes.ts';

/**
 * An event type: its current schema version, the zod schema of that version, upcasters that lift older
 * stored versions one step at a time (upcasters[1] turns v1 data into v2 data, and so on), and the scope
 * kinds it is appended with (which decide its Kafka topic, see scopes.ts).
 */
export interface EventDefinition<TType extends string = string, TSchema extends z.ZodType = z.ZodType> {
  readonly type: TType;
  readonly version: number;
  readonly schema: TSchema;
  readonly upcasters: Readonly<Record<number, (older: unknown) => unknown>>;
  readonly scopes: readonly ScopeKind[];
}

export function defineEvent<TType extends string, TSchema extends z.ZodType>(definition: {
  type: TType;
  schema: TSchema;
  scopes: readonly [ScopeKind, ...ScopeKind[]];
  version?: number;
  upcasters?: Record<number, (older: unknown) => unknown>;
}): EventDefinition<TType, TSchema> {
  const version = definition.version ?? 1;
  const upcasters = definition.upcasters ?? {};
  for (let v = 1; v < version; v += 1) {
    if (!upcasters[v]) throw new Error(`event ${definition.type}: missing upcaster from v${v} to v${v + 1}`);
  }
  return { type: definition.type, schema: definition.schema, version, upcasters, scopes: definition.scopes };
}

export type EventDataOf<D> = D extends EventDefinition<string, infer S> ? z.output<S> : never;

export class EventSchemaError extends Error {
  readonly type: string;
  readonly issues: readonly string[];
  constructor(type: string, version: number, issues: readonly string[]) {
    super(`event ${type} (v${version}) is invalid: ${issues.join('; ')}`);
    this.name = 'EventSchemaError';
    this.type = type;
    this.issues = issues;
  }
}

export class UnknownEventTypeError extends Error {
  constructor(type: string) {
    super(`unknown event type "${type}"`);
    this.name = 'UnknownEventTypeError';
  }
}

function describeIssues(error: z.ZodError): string[] {
  return error.issues.map((issue) => `${issue.path.length ? issue.path.join('.') : '(data)'}: ${issue.message}`);
}

export interface EventRegistry {
  readonly definitions: ReadonlyMap<string, EventDefinition>;
  has(type: string): boolean;
  currentVersion(type: string): number;
  /** Validates data of the current version and the scope's kind before it is appended. Throws EventSchemaError. */
  validateForAppend(type: string, data: unknown, scope: string): { version: number; data: unknown };
  /** Lifts stored data to the current version and validates it. Throws EventSchemaError. */
  decode(type: string, storedVersion: number, data: unknown): unknown;
}

export function createEventRegistry(definitions: readonly EventDefinition[]): EventRegistry {
  const byType = new Map<string, EventDefinition>();
  for (const definition of definitions) {
    if (byType.has(definition.type)) throw new Error(`event type ${definition.type} is defined twice`);
    byType.set(definition.type, definition);
  }
  const get = (type: string): EventDefinition => {
    const definition = byType.get(type);
    if (!definition) throw new UnknownEventTypeError(type);
    return definition;
  };
  const parse = (definition: EventDefinition, data: unknown): unknown => {
    const result = definition.schema.safeParse(data);
    if (!result.success) throw new EventSchemaError(definition.type, definition.version, describeIssues(result.error));
    return result.data;
  };
  return {
    definitions: byType,
    has: (type) => byType.has(type),
    currentVersion: (type) => get(type).version,
    validateForAppend(type, data, scope) {
      const definition = get(type);
      const kind = scopeKindOf(scope);
      if (kind === null || !definition.scopes.includes(kind)) {
        throw new EventSchemaError(type, definition.version, [`scope "${scope}" is not of a kind this event declares (${definition.scopes.join(', ')})`]);
      }
      return { version: definition.version, data: parse(definition, data) };
    },
    decode(type, storedVersion, data) {
      const definition = get(type);
      if (storedVersion > definition.version) {
        throw new EventSchemaError(type, storedVersion, [`stored version is newer than this code knows (v${definition.version})`]);
      }
      let lifted = data;
      for (let v = storedVersion; v < definition.version; v += 1) lifted = definition.upcasters[v]!(lifted);
      return parse(definition, lifted);
    },
  };
}
