/**
 * Read-only rendering of an announcement: OTOG keeps a Slate document (JSON) in `value`. Headings,
 * quotes, lists, links and the bold/italic/underline/code marks are drawn; anything else is a paragraph,
 * and text that is not a Slate document shows as it is (its line breaks kept).
 */
import type { ReactNode } from 'react';
import './problem.css';

interface SlateText {
  text: string;
  bold?: boolean;
  italic?: boolean;
  underline?: boolean;
  code?: boolean;
}
interface SlateElement {
  type?: string;
  url?: string;
  children: SlateNode[];
}
type SlateNode = SlateText | SlateElement;

const isText = (node: unknown): node is SlateText => typeof node === 'object' && node !== null && typeof (node as SlateText).text === 'string';
const isElement = (node: unknown): node is SlateElement => typeof node === 'object' && node !== null && Array.isArray((node as SlateElement).children);

function parse(value: string): SlateNode[] | null {
  try {
    const parsed: unknown = JSON.parse(value);
    const nodes = Array.isArray(parsed) ? parsed : isElement(parsed) ? [parsed] : null;
    return nodes && nodes.every((node) => isElement(node) || isText(node)) ? (nodes as SlateNode[]) : null;
  } catch {
    return null;
  }
}

/** Only web links are followed. */
const safeUrl = (url: string | undefined) => (url && /^(https?:|mailto:|\/)/i.test(url.trim()) ? url.trim() : undefined);

function leaf(node: SlateText, key: number): ReactNode {
  let content: ReactNode = node.text;
  if (node.code) content = <code>{content}</code>;
  if (node.bold) content = <strong>{content}</strong>;
  if (node.italic) content = <em>{content}</em>;
  if (node.underline) content = <u>{content}</u>;
  return <span key={key}>{content}</span>;
}

function render(nodes: SlateNode[]): ReactNode[] {
  return nodes.map((node, index) => {
    if (isText(node)) return leaf(node, index);
    if (!isElement(node)) return null;
    const children = render(node.children);
    switch (node.type) {
      case 'heading-one':
      case 'h1':
        return <h2 key={index} className="rt-h1">{children}</h2>;
      case 'heading-two':
      case 'h2':
        return <h3 key={index} className="rt-h2">{children}</h3>;
      case 'heading-three':
      case 'h3':
        return <h4 key={index} className="rt-h3">{children}</h4>;
      case 'heading-four':
      case 'h4':
        return <h5 key={index} className="rt-h4">{children}</h5>;
      case 'block-quote':
      case 'blockquote':
        return <blockquote key={index}>{children}</blockquote>;
      case 'numbered-list':
      case 'ol':
        return <ol key={index}>{children}</ol>;
      case 'bulleted-list':
      case 'ul':
        return <ul key={index}>{children}</ul>;
      case 'list-item':
      case 'li':
        return <li key={index}>{children}</li>;
      case 'link':
      case 'a': {
        const href = safeUrl(node.url);
        return href ? (
          <a key={index} href={href} target="_blank" rel="noreferrer">
            {children}
          </a>
        ) : (
          <span key={index}>{children}</span>
        );
      }
      default:
        return <p key={index}>{children}</p>;
    }
  });
}

export function RichText({ value, className }: { value: string; className?: string }) {
  const nodes = parse(value);
  return <div className={['rich-text', className].filter(Boolean).join(' ')}>{nodes ? render(nodes) : <p className="rich-text-plain">{value}</p>}</div>;
}

const textOf = (node: SlateNode): string => (isText(node) ? node.text : node.children.map(textOf).join(''));
const hasBlocks = (node: SlateElement) => node.children.some((child) => isElement(child) && child.type !== 'link' && child.type !== 'a');
const linesOf = (node: SlateNode): string[] => (isElement(node) && hasBlocks(node) ? node.children.flatMap(linesOf) : [textOf(node)]);

/** A value as plain text for editing: a Slate document's blocks one to a line; any other text as it is. */
export function plainText(value: string): string {
  const nodes = parse(value);
  return nodes ? nodes.flatMap(linesOf).join('\n') : value;
}
