import type { TableInfo } from '../shared/engine-connector.js';

/**
 * A SQL Server identifier, always bracket-quoted with `]` doubled, so mixed case, reserved words
 * and special characters are kept exactly whatever QUOTED_IDENTIFIER says. Names only reach here
 * after schema validation.
 */
export function quoteIdent(name: string): string {
  return '[' + name.replaceAll(']', ']]') + ']';
}

/** `[schema].[table]`, or the bare quoted table when the snapshot carries no schema. */
export function qualifiedName(table: Pick<TableInfo, 'schema' | 'name'>): string {
  return table.schema === null ? quoteIdent(table.name) : quoteIdent(table.schema) + '.' + quoteIdent(table.name);
}
