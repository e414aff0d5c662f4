/** Files the browser suites upload: a small real PDF, a test-data zip and the a+b solutions. */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { zipSync } from 'fflate';
import { textPdf } from '@otog/api/seed/sample-statements';
import { root } from '../e2e/otog-process.ts';

/** A one-page PDF with a line of text (the sample statements' writer). */
export const tinyPdf = (text: string): Buffer => Buffer.from(textPdf(text, []));

/** The a+b sample's test data as an upload zip (files at the zip root). */
export function aplusbZip(): Buffer {
  const folder = join(root, 'judge/samples/problems/aplusb');
  const files = Object.fromEntries(readdirSync(folder).map((name) => [name, new Uint8Array(readFileSync(join(folder, name)))]));
  return Buffer.from(zipSync(files));
}

export const solution = (name: string) => readFileSync(join(root, 'judge/samples/solutions/aplusb', name), 'utf8');
