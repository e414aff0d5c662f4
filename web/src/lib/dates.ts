/**
 * Dates as Thai readers expect them: the Thai locale with Buddhist-era years (2568 = 2025), Arabic digits.
 * Every date on screen goes through here.
 */
const LOCALE = 'th-TH-u-ca-buddhist-nu-latn';

/**
 * Each format is made on its first use: making one loads the locale's calendar data, tens of milliseconds
 * of a page's boot that most pages (a scoreboard, say) would spend on formats they never show.
 */
function lazyFormat(options: Intl.DateTimeFormatOptions): () => Intl.DateTimeFormat {
  let format: Intl.DateTimeFormat | undefined;
  return () => (format ??= new Intl.DateTimeFormat(LOCALE, { hour12: false, ...options }));
}
const numeric = lazyFormat({ day: '2-digit', month: '2-digit', year: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' });
const numericShort = lazyFormat({ day: '2-digit', month: '2-digit', year: '2-digit', hour: '2-digit', minute: '2-digit' });
const long = lazyFormat({ day: 'numeric', month: 'long', year: 'numeric', hour: '2-digit', minute: '2-digit' });
const dateOnly = lazyFormat({ day: 'numeric', month: 'short', year: 'numeric' });

function pick(format: () => Intl.DateTimeFormat, date: Date): Record<string, string> {
  return Object.fromEntries(format().formatToParts(date).map((part) => [part.type, part.value]));
}

const asDate = (value: string | number | Date) => (value instanceof Date ? value : new Date(value));

/** 25/11/2569 14:05:09 */
export function formatDateTime(value: string | number | Date): string {
  const p = pick(numeric, asDate(value));
  return `${p.day}/${p.month}/${p.year} ${p.hour}:${p.minute}:${p.second}`;
}

/** 25/11/69 14:05 */
export function formatShortDateTime(value: string | number | Date): string {
  const p = pick(numericShort, asDate(value));
  return `${p.day}/${p.month}/${p.year} ${p.hour}:${p.minute}`;
}

/** 25 พฤศจิกายน 2569 14:05 */
export function formatLongDateTime(value: string | number | Date): string {
  return long().format(asDate(value));
}

/** 25 พ.ย. 2569 */
export function formatDate(value: string | number | Date): string {
  return dateOnly().format(asDate(value));
}

/** Seconds with three decimals, from milliseconds: 1234 → "1.234". */
export function formatSeconds(milliseconds: number): string {
  return (milliseconds / 1000).toFixed(3);
}
