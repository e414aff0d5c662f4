/**
 * The code editor (CodeMirror 6). Its own chunk: only the problem page's editor tab loads it. The editor
 * keeps its text; the page hears every change. Highlighting follows the language (C and C++ share the
 * C++ grammar), colours follow the app's theme. Tab is left to move focus, so the keyboard never gets stuck.
 */
import { cpp } from '@codemirror/lang-cpp';
import { python } from '@codemirror/lang-python';
import { HighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { Compartment, EditorState, type Extension } from '@codemirror/state';
import { EditorView } from '@codemirror/view';
import { tags } from '@lezer/highlight';
import { basicSetup } from 'codemirror';
import { useEffect, useRef } from 'react';
import type { Language } from '@otog/schemas/common/judging';

export interface CodeEditorProps {
  initialDoc: string;
  language: Language;
  dark: boolean;
  onChange(code: string): void;
  label: string;
  invalid?: boolean;
  describedBy?: string | undefined;
}

const languageExtension = (language: Language): Extension => (language === 'python' ? python() : cpp());

/** The frame in the app's own colours (CSS variables, so light and dark both fit). */
const frame = (dark: boolean) =>
  EditorView.theme(
    {
      '&': { backgroundColor: 'var(--bg)', color: 'var(--fg)', height: '100%', fontSize: '14px' },
      '.cm-scroller': { fontFamily: 'var(--mono)', lineHeight: '1.55' },
      '.cm-content': { caretColor: 'var(--fg)' },
      '.cm-cursor, .cm-dropCursor': { borderLeftColor: 'var(--fg)' },
      '.cm-gutters': { backgroundColor: 'var(--bg-subtle)', color: 'var(--fg-muted)', borderRight: '1px solid var(--border)' },
      '.cm-activeLine': { backgroundColor: dark ? 'rgb(255 255 255 / 0.04)' : 'rgb(0 0 0 / 0.035)' },
      '.cm-activeLineGutter': { backgroundColor: 'var(--bg-muted)', color: 'var(--fg)' },
      '&.cm-focused .cm-selectionBackground, .cm-selectionBackground, .cm-content ::selection': {
        backgroundColor: dark ? '#264f78 !important' : '#cfe3ff !important',
      },
      '.cm-panels': { backgroundColor: 'var(--bg-subtle)', color: 'var(--fg)' },
      '.cm-tooltip': { backgroundColor: 'var(--bg)', border: '1px solid var(--border)', color: 'var(--fg)' },
      '.cm-tooltip-autocomplete > ul > li[aria-selected]': { backgroundColor: 'var(--accent-soft)', color: 'var(--fg)' },
      '.cm-matchingBracket': { backgroundColor: dark ? 'rgb(255 255 255 / 0.12)' : 'rgb(0 0 0 / 0.08)', outline: 'none' },
    },
    { dark },
  );

/** Dark-background syntax colours (the light ones come with basicSetup). */
const darkHighlight = HighlightStyle.define([
  { tag: [tags.keyword, tags.bool, tags.null, tags.atom], color: '#569cd6' },
  { tag: [tags.controlKeyword, tags.moduleKeyword, tags.processingInstruction, tags.meta], color: '#c586c0' },
  { tag: [tags.string, tags.special(tags.string), tags.character], color: '#ce9178' },
  { tag: [tags.number, tags.integer, tags.float], color: '#b5cea8' },
  { tag: [tags.comment, tags.lineComment, tags.blockComment], color: '#6a9955', fontStyle: 'italic' },
  { tag: [tags.typeName, tags.className, tags.namespace, tags.standard(tags.typeName)], color: '#4ec9b0' },
  { tag: [tags.function(tags.variableName), tags.function(tags.propertyName), tags.macroName], color: '#dcdcaa' },
  { tag: [tags.variableName, tags.propertyName, tags.attributeName], color: '#9cdcfe' },
  { tag: [tags.operator, tags.punctuation, tags.bracket], color: '#d4d4d4' },
  { tag: tags.invalid, color: '#f44747' },
]);

const colours = (dark: boolean): Extension => (dark ? [frame(true), syntaxHighlighting(darkHighlight)] : frame(false));

const contentAttributes = (label: string, invalid: boolean, describedBy: string | undefined) =>
  EditorView.contentAttributes.of({
    'aria-label': label,
    ...(invalid ? { 'aria-invalid': 'true' } : {}),
    ...(describedBy ? { 'aria-describedby': describedBy } : {}),
  });

export default function CodeEditor({ initialDoc, language, dark, onChange, label, invalid = false, describedBy }: CodeEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const compartments = useRef({ language: new Compartment(), colours: new Compartment(), attributes: new Compartment() });
  const listener = useRef(onChange);
  listener.current = onChange;

  // One editor per mount; its text is not driven by props afterwards.
  const initial = useRef({ initialDoc, language, dark, label, invalid, describedBy });
  useEffect(() => {
    const start = initial.current;
    const parts = compartments.current;
    const editor = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: start.initialDoc,
        extensions: [
          basicSetup,
          EditorState.tabSize.of(4),
          parts.language.of(languageExtension(start.language)),
          parts.colours.of(colours(start.dark)),
          parts.attributes.of(contentAttributes(start.label, start.invalid, start.describedBy)),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) listener.current(update.state.doc.toString());
          }),
        ],
      }),
    });
    view.current = editor;
    return () => {
      editor.destroy();
      view.current = null;
    };
  }, []);

  useEffect(() => {
    view.current?.dispatch({ effects: compartments.current.language.reconfigure(languageExtension(language)) });
  }, [language]);
  useEffect(() => {
    view.current?.dispatch({ effects: compartments.current.colours.reconfigure(colours(dark)) });
  }, [dark]);
  useEffect(() => {
    view.current?.dispatch({ effects: compartments.current.attributes.reconfigure(contentAttributes(label, invalid, describedBy)) });
  }, [label, invalid, describedBy]);

  return <div ref={host} className="code-editor" data-language={language} />;
}
