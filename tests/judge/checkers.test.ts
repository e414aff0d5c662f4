/**
 * DOMAIN.md "Test data", checkers: the standard comparison and the parsing of custom checkers' output.
 */
import { describe, expect, it } from 'vitest';
import { parsePartialCheckerOutput, parseSingleCharCheckerOutput, standardCheck } from '@otog/judge';

describe('standard checker', () => {
  it.each([
    ['identical', '1 2\n3\n', '1 2\n3\n', true],
    ['missing final newline', '1 2\n3\n', '1 2\n3', true],
    ['trailing spaces and tabs', '1 2\n3\n', '1 2   \n3\t\n', true],
    ['CRLF line ends', '1 2\n3\n', '1 2\r\n3\r\n', true],
    ['CRLF in the answer file', '1 2\r\n3\r\n', '1 2\n3', true],
    ['lone CR as a line end (Python universal newlines)', '1\n2\n', '1\r2\r', true],
    ['extra trailing blank lines', '1\n', '1\n\n\n\n', true],
    ['missing trailing blank lines', '1\n\n\n', '1', true],
    ['trailing whitespace-only lines', '1\n', '1\n   \n\t\n', true],
    ['both empty', '', '', true],
    ['empty output for a blank answer', '\n\n', '', true],
    ['vertical tab and form feed at line end', 'a\n', 'a\v\f\n', true],
    ['wrong value', '1 2\n3\n', '1 2\n4\n', false],
    ['leading whitespace matters', '1 2\n', ' 1 2\n', false],
    ['inner whitespace matters', '1 2\n', '1  2\n', false],
    ['tab instead of space', '1 2\n', '1\t2\n', false],
    ['a blank line in the middle', '1\n2\n', '1\n\n2\n', false],
    ['a missing line', '1\n2\n', '1\n', false],
    ['an extra non-blank line', '1\n', '1\n2\n', false],
    ['empty output for a non-empty answer', '1\n', '', false],
    ['case matters', 'YES\n', 'yes\n', false],
    ['a non-breaking space is not stripped', 'a\n', 'a\u00a0\n', false],
  ])('%s', (_label, expected, actual, accepted) => {
    expect(standardCheck(expected, actual)).toBe(accepted);
    expect(standardCheck(Buffer.from(expected, 'utf8'), Buffer.from(actual, 'utf8'))).toBe(accepted);
  });

  it('compares bytes exactly, invalid UTF-8 included', () => {
    expect(standardCheck(new Uint8Array([0xff, 0xfe, 0x0a]), new Uint8Array([0xff, 0xfe, 0x20, 0x0d, 0x0a]))).toBe(true);
    expect(standardCheck(new Uint8Array([0xff, 0x0a]), new Uint8Array([0xfe, 0x0a]))).toBe(false);
    expect(standardCheck('สวัสดี\n', Buffer.from('สวัสดี  \r\n'))).toBe(false); // a string is not bytes: compare like with like
    expect(standardCheck(Buffer.from('สวัสดี\n'), Buffer.from('สวัสดี  \r\n'))).toBe(true);
  });

  it('handles a subarray view of a larger buffer', () => {
    const whole = Buffer.from('xx12\nyy');
    expect(standardCheck('12\n', whole.subarray(2, 5))).toBe(true);
  });
});

describe('partial checker output (thaco.cpp / partial.cpp)', () => {
  it.each([
    ['1', 'ACCEPTED', 1],
    ['1.0\n', 'ACCEPTED', 1],
    ['  0.99995  ', 'ACCEPTED', 1],
    ['0.9999', 'ACCEPTED', 1],
    ['1.0001', 'ACCEPTED', 1],
    ['1e0', 'ACCEPTED', 1],
    ['0', 'REJECTED', 0],
    ['0.0001', 'REJECTED', 0],
    ['-0.0001', 'REJECTED', 0],
    ['-0', 'REJECTED', 0],
    ['0.6', 'PARTIAL', 0.6],
    ['.25', 'PARTIAL', 0.25],
    ['5.', 'PARTIAL', 1],
    ['0.99989', 'PARTIAL', 0.99989],
    ['0.00011', 'PARTIAL', 0.00011],
    ['1.5', 'PARTIAL', 1],
    ['-0.5', 'PARTIAL', 0],
    ['2e-1', 'PARTIAL', 0.2],
  ] as const)('%j → %s %d', (output, status, percent) => {
    expect(parsePartialCheckerOutput(output)).toEqual({ valid: true, status, percent });
  });

  it.each(['', '   ', 'NOICE', 'NOICE\n1.0', '1.0\n1.0', '0.5 0.5', 'nan', 'inf', 'Infinity', '1e999', '0x1', '1,5', '50%', '1_0'])(
    '%j is invalid',
    (output) => {
      const parsed = parsePartialCheckerOutput(output);
      expect(parsed.valid).toBe(false);
      if (!parsed.valid) expect(parsed.reason).toMatch(/partial checker/);
    },
  );
});

describe('single-character checker output (interactive_script.py stdout, check.cpp grader_result.txt)', () => {
  it.each([
    ['P', 'ACCEPTED', 1],
    ['P\n', 'ACCEPTED', 1],
    ['  P  ', 'ACCEPTED', 1],
    ['W', 'REJECTED', 0],
    ['-', 'REJECTED', 0],
    ['p', 'REJECTED', 0],
    ['ก', 'REJECTED', 0],
  ] as const)('%j → %s', (output, status, percent) => {
    expect(parseSingleCharCheckerOutput(output)).toEqual({ valid: true, status, percent });
  });

  it.each(['', '\n', 'PP', 'P\nP', 'Noice\nP', 'PASS'])('%j is invalid (→ Problem Error)', (output) => {
    expect(parseSingleCharCheckerOutput(output)).toEqual({
      valid: false,
      reason: `the checker must print exactly one character, it printed ${JSON.stringify(output)}`,
    });
  });
});
