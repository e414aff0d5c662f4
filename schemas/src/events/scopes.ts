/**
 * Scopes: the ordering domains of the event log. An event's scope is `<kind>:<key>` (`user:12`,
 * `contest:7`, `problem:3`, `announcement:global`, `chat:global`); consumers see the events of one scope
 * in log order. When the log is relayed to Kafka, each kind has one topic and the scope is the message key,
 * so one scope stays in one partition, in order. Every event definition names the kinds it may be appended
 * with, so an event the relay could not route is refused when it is appended, not when it is published.
 */
export const SCOPE_KINDS = {
  /** A user's own events and their practice (non-contest) submissions and verdicts. */
  user: { topic: 'otog.submissions.v1' },
  /** A contest: its lifecycle, its submissions and verdicts, its announcements, its scores. */
  contest: { topic: 'otog.contest-events.v1' },
  /** Problem management: details, limits, files, visibility. */
  problem: { topic: 'otog.problems.v1' },
  /** Announcements outside contests (`announcement:global`). */
  announcement: { topic: 'otog.announcements.v1' },
  chat: { topic: 'otog.chat.v1' },
} as const satisfies Record<string, { readonly topic: string }>;

export type ScopeKind = keyof typeof SCOPE_KINDS;

export const SCOPE_KIND_NAMES = Object.keys(SCOPE_KINDS) as ScopeKind[];

/** The kind of `kind:key`, or null when the scope has no known kind. */
export function scopeKindOf(scope: string): ScopeKind | null {
  const kind = scope.slice(0, scope.indexOf(':'));
  return Object.hasOwn(SCOPE_KINDS, kind) ? (kind as ScopeKind) : null;
}
