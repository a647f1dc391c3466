import { describe, expect, it } from 'vitest';
import type { ColumnInfo, TableInfo } from '../../src/engine/connectors/shared/engine-connector.js';
import { describeColumnType as oracleType } from '../../src/engine/connectors/oracle/oracle-types.js';
import { buildSelect as oracleSelect } from '../../src/engine/connectors/oracle/oracle-sql.js';
import { describeColumnType as sqlServerType } from '../../src/engine/connectors/sqlserver/sqlserver-types.js';
import { buildSelect as sqlServerSelect } from '../../src/engine/connectors/sqlserver/sqlserver-sql.js';
import { FILTER_CASES } from './filter-cases.js';

/**
 * SQL Server and Oracle cannot run here: for every differential filter case, the exact statement
 * and bindings each connector sends are pinned in the committed snapshot
 * (__snapshots__/filter-differential-sql.spec.ts.snap), reviewed by hand. The same cases run
 * against real servers in sqlserver-filters / oracle-filters when TEST_MSSQL_URL / TEST_ORACLE_URL
 * are set.
 */
const sqlServerItems: TableInfo = {
  schema: 'dbo',
  name: 'items',
  key: 'items',
  primaryKey: ['id'],
  columns: (
    [
      ['id', 'int', 4, 10, 0],
      ['label', 'nvarchar', 128, 0, 0],
      ['amount', 'decimal', 9, 10, 2],
      ['qty', 'int', 4, 10, 0],
      ['active', 'bit', 1, 1, 0],
      ['day', 'date', 3, 10, 0],
      ['at', 'datetime2', 7, 23, 3],
      ['category', 'nvarchar', 16, 0, 0],
    ] as const
  ).map(([name, typeName, maxLength, precision, scale]): ColumnInfo => ({
    name,
    dataType: typeName,
    engineType: sqlServerType({ typeName, baseTypeName: typeName, isAssemblyType: false, maxLength, precision, scale }),
  })),
};

const oracleItems: TableInfo = {
  schema: 'FETCHER',
  name: 'ITEMS',
  key: 'ITEMS',
  primaryKey: ['ID'],
  columns: (
    [
      ['ID', 'NUMBER', 10, 0, null],
      ['LABEL', 'VARCHAR2', null, null, 64],
      ['AMOUNT', 'NUMBER', 10, 2, null],
      ['QTY', 'NUMBER', 10, 0, null],
      ['ACTIVE', 'NUMBER', 1, 0, null],
      ['DAY', 'DATE', null, null, null],
      ['AT', 'TIMESTAMP(3)', null, 3, null],
      ['CATEGORY', 'VARCHAR2', null, null, 8],
    ] as const
  ).map(([name, dataType, precision, scale, charLength]): ColumnInfo => ({
    name,
    dataType,
    engineType: oracleType({ dataType, precision, scale, charLength }),
  })),
};

const engines = [
  { name: 'SQL Server', table: sqlServerItems, column: (name: string) => name, build: sqlServerSelect },
  { name: 'Oracle', table: oracleItems, column: (name: string) => name.toUpperCase(), build: oracleSelect },
] as const;

describe.each(engines)('$name: the statement and bindings of every differential filter case', ({ table, column, build }) => {
  it.each(FILTER_CASES)('$name', ({ filters }) => {
    const id = table.columns.filter((c) => c.name === column('id'));
    const folded = Object.fromEntries(Object.entries(filters).map(([field, condition]) => [column(field), condition]));
    const statement = build({ table, columns: id, filters: folded });
    expect(statement).toMatchSnapshot();
  });
});
