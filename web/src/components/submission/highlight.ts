/** Prism with the three submission languages, used by hand (see prism-manual.ts). */
import './prism-manual.ts';
import Prism from 'prismjs';
import 'prismjs/components/prism-clike.js';
import 'prismjs/components/prism-c.js';
import 'prismjs/components/prism-cpp.js';
import 'prismjs/components/prism-python.js';
import type { Language } from '@otog/schemas/common/judging';

const escape = (code: string) => code.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Highlighted HTML of a source file (Prism escapes the text; unknown grammars are only escaped). */
export function highlight(code: string, language: Language): string {
  const grammar = Prism.languages[language];
  return grammar ? Prism.highlight(code, grammar, language) : escape(code);
}
