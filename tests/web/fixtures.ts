/** Files the browser suites upload: a small real PDF, a test-data zip and the a+b solutions. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { zipSync } from 'fflate';
import { root } from '../e2e/otog-process.ts';

/** A one-page PDF with a line of text (offsets computed, so viewers open it without repair). */
export function tinyPdf(text: string): Buffer {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${`BT /F1 24 Tf 72 760 Td (${text}) Tj ET`.length} >>\nstream\nBT /F1 24 Tf 72 760 Td (${text}) Tj ET\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((object, i) => {
    offsets.push(body.length);
    body += `${i + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

/** The a+b sample's test data as an upload zip (files at the zip root). */
export function aplusbZip(): Buffer {
  const folder = join(root, 'judge/samples/problems/aplusb');
  const files = Object.fromEntries(readdirSync(folder).map((name) => [name, new Uint8Array(readFileSync(join(folder, name)))]));
  return Buffer.from(zipSync(files));
}

export const solution = (name: string) => readFileSync(join(root, 'judge/samples/solutions/aplusb', name), 'utf8');
