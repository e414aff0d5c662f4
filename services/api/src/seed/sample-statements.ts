/**
 * Statements for the sample problems of judge/samples (a folder without its own PDF gets one of these), so
 * a fresh `npm start` shows real problem pages. Plain one-page PDFs in a built-in font: ASCII text only.
 */
const STATEMENTS: Readonly<Record<string, readonly string[]>> = {
  aplusb: ['Read two integers a and b (|a|, |b| <= 10^9) on one line.', 'Print a + b.', '', 'Example: input "1 2", output "3".'],
  'five-subtask': [
    'Each test gives two integers: its subtask number and its case number.',
    'Print the single letter P.',
    '',
    'Five subtasks (subtask.json): sum, group, group, max and min scoring,',
    'some requiring others; the full score is 170 points before scaling.',
  ],
  'checker-interactive': ['Read an integer n.', 'Print two different integers whose sum is n.', '', 'Any such pair is accepted (a checker script decides).'],
  'checker-check-cpp': ['Read an integer n.', 'Print two different integers whose sum is n.', '', 'Any such pair is accepted (a C++ checker decides).'],
  'checker-thaco': [
    'Each test hides a target T.',
    'Print one integer x with 0 <= x <= T.',
    'A test scores x / T of its points: printing T scores them all.',
  ],
  'partial-options': [
    'Each test hides a target T.',
    'Print one integer x with 0 <= x <= T; a test scores x / T of its points.',
    '',
    'Three subtasks score their tests by sum, max and min.',
  ],
  library: [
    'Write only the function',
    '    long long add(long long a, long long b);',
    'returning a + b (declared in add.h). Do not write main():',
    'the problem\'s grader reads the input, calls add() and prints the result.',
  ],
};

const escapePdfText = (text: string) => text.replace(/[^\x20-\x7e]/g, '?').replace(/[\\()]/g, (c) => `\\${c}`);

/** A one-page A4 PDF: the title, then the lines (offsets computed, so every viewer opens it as is). */
export function textPdf(title: string, lines: readonly string[]): Uint8Array {
  const text = [
    `BT /F1 20 Tf 56 770 Td (${escapePdfText(title)}) Tj ET`,
    ...lines.map((line, i) => `BT /F2 12 Tf 56 ${730 - i * 18} Td (${escapePdfText(line)}) Tj ET`),
  ].join('\n');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /Font << /F1 5 0 R /F2 6 0 R >> >> >>',
    `<< /Length ${text.length} >>\nstream\n${text}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Courier >>',
  ];
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((object, i) => {
    offsets.push(body.length);
    body += `${i + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('')}`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(body);
}

/** The statement PDF of a sample problem, or undefined for a folder this file does not know. */
export function sampleStatement(name: string, title: string): Uint8Array | undefined {
  const lines = STATEMENTS[name];
  return lines ? textPdf(title, lines) : undefined;
}
