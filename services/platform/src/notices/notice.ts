/**
 * After-commit notices: small "X changed" messages a projection emits while folding ("submission 42
 * changed", "contest 7's scoreboard changed"). They are collected per batch and published only once the
 * batch's transaction has committed, so whoever reacts (a socket push, a client refetch) always reads what
 * the notice announces, never a state that might still roll back.
 */
import { encodePosition, type Position } from '../eventstore/position.ts';

export interface Notice {
  /** What kind of thing changed: 'submission', 'scoreboard', ... */
  readonly topic: string;
  /** Which one: the submission's id, the contest's id. */
  readonly key: string;
  /** The log position (`txid/gpos`) of the last event behind it: later notices of one key carry later ones. */
  readonly seq: string;
  /** A few facts receivers route by (e.g. the submission's owner); never the read model's content. */
  readonly data?: Readonly<Record<string, string | number | boolean | null>>;
}

/** What a fold may call; the position is the event being folded. */
export interface FoldContext {
  notify(notice: Omit<Notice, 'seq'>): void;
}

/** Collects a batch's notices, one per topic and key (the latest wins), in the order they were first raised. */
export function noticeCollector(): { contextAt(position: Position): FoldContext; notices(): Notice[] } {
  const byKey = new Map<string, Notice>();
  return {
    contextAt: (position) => ({
      notify(notice) {
        byKey.set(`${notice.topic}\u0000${notice.key}`, { ...notice, seq: encodePosition(position) });
      },
    }),
    notices: () => [...byKey.values()],
  };
}

/** Where notices go after commit, and where receivers (the realtime gateway) hear them, on every node. */
export interface Notifier {
  publish(notices: readonly Notice[]): Promise<void>;
  /** Calls `receive` for every notice published by any process from now on; returns an unsubscribe. */
  subscribe(receive: (notice: Notice) => void): () => void;
  /** Resolves once subscriptions made so far hear what is published from now on. */
  ready(): Promise<void>;
  close(): Promise<void>;
}

const MAX_PAYLOAD_CHARS = 7_000;

/** JSON arrays of notices, each under `maxChars` (pg_notify payloads stop at 8000 bytes). */
export function packNotices(notices: readonly Notice[], maxChars = MAX_PAYLOAD_CHARS): string[] {
  const packs: string[] = [];
  let current: string[] = [];
  let size = 2;
  for (const notice of notices) {
    const json = JSON.stringify(notice);
    if (json.length + 2 > maxChars) throw new Error(`a notice of ${json.length} characters is too large (topic ${notice.topic})`);
    if (current.length > 0 && size + json.length + 1 > maxChars) {
      packs.push(`[${current.join(',')}]`);
      current = [];
      size = 2;
    }
    current.push(json);
    size += json.length + 1;
  }
  if (current.length > 0) packs.push(`[${current.join(',')}]`);
  return packs;
}
