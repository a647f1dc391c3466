import type { TableInfo } from '../shared/engine-connector.js';

/**
 * A MySQL identifier, always backtick-quoted with embedded backticks doubled, so mixed case,
 * reserved words and special characters are kept exactly whatever the server's sql_mode (no
 * reliance on ANSI_QUOTES). Names only reach here after schema validation.
 */
export function quoteIdent(name: string): string {
  return '`' + name.replaceAll('`', '``') + '`';
}

/** `` `database`.`table` ``, or the bare quoted table when the snapshot carries no database. */
export function qualifiedName(table: Pick<TableInfo, 'schema' | 'name'>): string {
  return table.schema === null ? quoteIdent(table.name) : quoteIdent(table.schema) + '.' + quoteIdent(table.name);
}
