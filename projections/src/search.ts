/** The admin searches' SQL: text contained in any case, or an exact id. */
import { sql } from '@otog/platform/db/pool';

type Column = ReturnType<typeof sql.identifier>;

/** `%text%` for ILIKE, where `%`, `_` and `\` in the text mean themselves. */
export const likeContains = (text: string): string => `%${text.replace(/[\\%_]/g, (character) => `\\${character}`)}%`;

/**
 * OTOG's admin search: an all-digit text also matches the id exactly; any text matches the given columns
 * as a substring in any case. Blank: everything.
 */
export function idOrTextSearch(search: string | undefined, idColumn: Column, textColumns: readonly Column[]) {
  const text = search?.trim() ?? '';
  if (text === '') return sql.fragment`TRUE`;
  const pattern = likeContains(text);
  const byText = sql.join(
    textColumns.map((column) => sql.fragment`${column} ILIKE ${pattern}`),
    sql.fragment` OR `,
  );
  return /^\d{1,9}$/.test(text) ? sql.fragment`(${idColumn} = ${Number(text)} OR ${byText})` : sql.fragment`(${byText})`;
}
