/**
 * The verdict string (DOMAIN.md "Result string"): one segment per subtask in number order; a group in
 * `[...]`; a non-group in `(...)` only when there are several subtasks.
 */
import { verdictChar, type VerdictStatus } from './verdict.ts';

export interface ResultSegment {
  readonly group: boolean;
  readonly statuses: readonly VerdictStatus[];
}

export function formatResultString(segments: readonly ResultSegment[]): string {
  const several = segments.length > 1;
  return segments
    .map((segment) => {
      const chars = segment.statuses.map(verdictChar).join('');
      if (segment.group) return `[${chars}]`;
      return several ? `(${chars})` : chars;
    })
    .join('');
}
