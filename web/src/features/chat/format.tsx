/**
 * How a chat message is shown: OTOG's inline markup in one pass without nesting (`_italic_`, `~strike~`,
 * `*bold*`, `` `code` ``, `[link]`), large emoji-only messages, the Thai date headers and the full
 * timestamp. Everything becomes React text nodes: a message can never inject markup.
 */
import type { ReactNode } from 'react';
import { formatDateTime } from '../../lib/dates.ts';

/** Emoji-only messages up to this many characters (UTF-16 units, as OTOG counts) show large, without a bubble. */
export const EMOJI_ONLY_MAX = 12;

const EMOJI_ONLY = /^(?:\p{Extended_Pictographic}|\p{Emoji_Modifier}|\p{Regional_Indicator}|\u200d|\ufe0f|\u20e3|\s)+$/u;
const HAS_EMOJI = /\p{Extended_Pictographic}|\p{Regional_Indicator}/u;

export function isEmojiOnly(message: string): boolean {
  return message.length <= EMOJI_ONLY_MAX && EMOJI_ONLY.test(message) && HAS_EMOJI.test(message);
}

type Marker = '_' | '~' | '*' | '`' | '[';
const CLOSER: Record<Marker, string> = { _: '_', '~': '~', '*': '*', '`': '`', '[': ']' };
const isMarker = (char: string): char is Marker => char in CLOSER;

export type Token = { kind: 'text'; text: string } | { kind: 'italic' | 'strike' | 'bold' | 'code' | 'link'; text: string };
const KIND: Record<Marker, Exclude<Token['kind'], 'text'>> = { _: 'italic', '~': 'strike', '*': 'bold', '`': 'code', '[': 'link' };

/**
 * Splits a message into plain and marked runs, left to right. Inside an open marker the other markers are
 * plain text; a marker that is never closed leaves itself and the rest of the message as plain text; an
 * empty pair (`**`) is plain text too.
 */
export function tokenize(message: string): Token[] {
  const tokens: Token[] = [];
  let text = '';
  let open: Marker | null = null;
  let inside = '';
  const flush = () => {
    if (text) tokens.push({ kind: 'text', text });
    text = '';
  };
  for (const char of message) {
    if (open === null) {
      if (isMarker(char)) {
        open = char;
        inside = '';
      } else text += char;
    } else if (char === CLOSER[open]) {
      if (inside === '') text += open + char;
      else {
        flush();
        tokens.push({ kind: KIND[open], text: inside });
      }
      open = null;
    } else inside += char;
  }
  if (open !== null) text += open + inside;
  flush();
  return tokens;
}

/** The address a `[link]` opens: http(s) as written, a bare host gets https://; anything else is no link. */
export function linkHref(text: string): string | null {
  const candidate = /^https?:\/\//i.test(text) ? text : /^[\w-]+(\.[\w-]+)+([/?#]\S*)?$/.test(text) ? `https://${text}` : null;
  if (!candidate) return null;
  try {
    const url = new URL(candidate);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

export function ChatText({ message }: { message: string }): ReactNode {
  return tokenize(message).map((token, index) => {
    switch (token.kind) {
      case 'text':
        return token.text;
      case 'italic':
        return <em key={index}>{token.text}</em>;
      case 'strike':
        return <s key={index}>{token.text}</s>;
      case 'bold':
        return <strong key={index}>{token.text}</strong>;
      case 'code':
        return <code key={index}>{token.text}</code>;
      case 'link': {
        const href = linkHref(token.text);
        return href ? (
          <a key={index} href={href} target="_blank" rel="noopener noreferrer nofollow ugc">
            {token.text}
          </a>
        ) : (
          `[${token.text}]`
        );
      }
    }
  });
}

const headerFormat = new Intl.DateTimeFormat('th-TH-u-ca-buddhist-nu-latn', { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit', hour12: false });

/** The date header above a day's first message: "25 พ.ย. 14:05". */
export const formatChatHeader = (date: string) => headerFormat.format(new Date(date));

/** The full timestamp on hover: "25/11/2569 14:05:09". */
export const formatChatTimestamp = (date: string) => formatDateTime(date);

/** Whether two dates fall on the same local calendar day (OTOG compared weekdays; this compares days). */
export const sameDay = (a: string, b: string) => new Date(a).toDateString() === new Date(b).toDateString();
