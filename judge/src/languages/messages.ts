export const maxMessageLines = 300;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * A compiler message as shown to the user (DOMAIN.md): box paths removed (`/box/main.cpp:3:1` becomes
 * `main.cpp:3:1`, the host path of the box likewise), trailing blank lines dropped, at most 300 lines,
 * then "and N more lines...".
 */
export function trimCompilerMessage(text: string, boxPaths: readonly string[] = ['/box'], maxLines = maxMessageLines): string {
  let cleaned = text.replace(/\r\n/g, '\n');
  // Longest first, so that a host path containing "/box" is removed whole.
  for (const path of [...boxPaths].sort((a, b) => b.length - a.length)) {
    const base = path.replace(/\/+$/, '');
    if (base === '') continue;
    cleaned = cleaned.replace(new RegExp(`${escapeRegExp(base)}(?:/+|(?![\\w.-]))`, 'g'), '');
  }
  const lines = cleaned.split('\n');
  while (lines.length > 0 && lines[lines.length - 1]!.trim() === '') lines.pop();
  if (lines.length <= maxLines) return lines.join('\n');
  return [...lines.slice(0, maxLines), `and ${lines.length - maxLines} more lines...`].join('\n');
}
