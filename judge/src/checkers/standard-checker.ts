/**
 * The standard checker (DOMAIN.md "Test data"): the output is correct when it matches the expected
 * answer line by line after removing trailing whitespace from every line (CR included), and extra or
 * missing trailing blank lines are tolerated. Leading and inner whitespace matter.
 *
 * This mirrors OTOG's Python loop that reads both files with readline() until both are at EOF and
 * compares `a.rstrip() == b.rstrip()`: EOF reads as "", which equals a blank line's rstrip.
 */

type Text = string | Uint8Array;

/**
 * Bytes are read as latin1 so any byte sequence (invalid UTF-8 included) compares byte for byte, and a
 * multi-byte UTF-8 character never contains an ASCII whitespace byte, so stripping stays correct.
 */
function toText(value: Text): string {
  return typeof value === 'string' ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('latin1');
}

/**
 * Lines as Python's text mode sees them (universal newlines: \r\n, \r or \n end a line), each with
 * trailing ASCII whitespace removed (space, \t, \v, \f, \r). Python's str.rstrip also strips some
 * Unicode spaces (U+00A0, ...); we deliberately do not, as contestants never need them.
 */
function strippedLines(text: string): string[] {
  return text.split(/\r\n|\r|\n/).map((line) => line.replace(/[ \t\v\f\r]+$/, ''));
}

/** True when `actual` (the program's output) is accepted against `expected` (the .sol file). */
export function standardCheck(expected: Text, actual: Text): boolean {
  const want = strippedLines(toText(expected));
  const got = strippedLines(toText(actual));
  const length = Math.max(want.length, got.length);
  for (let line = 0; line < length; line += 1) {
    // A missing line is "" (EOF), so only blank lines may be missing or extra at the end.
    if ((want[line] ?? '') !== (got[line] ?? '')) return false;
  }
  return true;
}
