import type { BsonTypeName } from '../../../connectors/mongodb/mongodb-types.js';
import { describeColumnType as describeMySql } from '../../../connectors/mysql/mysql-types.js';
import { describeColumnType as describeOracle, displayType } from '../../../connectors/oracle/oracle-types.js';
import type { PostgresColumnType } from '../../../connectors/postgres/postgres-types.js';
import type { ColumnInfo } from '../../../connectors/shared/engine-connector.js';
import { describeColumnType as describeSqlServer, formatDataType } from '../../../connectors/sqlserver/sqlserver-types.js';

/*
 * Columns as each engine's discovery describes them (dataType and engineType), built with the
 * connectors' own describe functions where they have one, so the Parquet mapping is tested on what
 * a snapshot really holds.
 */

/** A PostgreSQL column: `dataType` is format_type's text, `typeOid` the base type's (domains resolved). */
export function pgColumn(name: string, dataType: string, typeOid: number, elementOid?: number, category = 'X'): ColumnInfo {
  const engineType: PostgresColumnType = {
    typeOid,
    category: elementOid === undefined ? category : 'A',
    castType: dataType.replace(/\(.*\)/, ''),
    ...(elementOid === undefined ? {} : { elementOid, elementDelimiter: ',' }),
  };
  return { name, dataType, engineType };
}

/** A MySQL/MariaDB column from its COLUMN_TYPE (`bigint(20) unsigned`, `decimal(38,10)`), as information_schema gives it. */
export function mysqlColumn(name: string, columnType: string, jsonChecked = false): ColumnInfo {
  const dataType = /^[a-z]+/.exec(columnType)?.[0] ?? columnType;
  const typmod = /\((\d+)(?:,(\d+))?\)/.exec(columnType);
  const numeric = dataType === 'decimal' || dataType === 'numeric';
  const engineType = describeMySql({
    dataType,
    columnType,
    numericPrecision: numeric && typmod ? Number(typmod[1]) : null,
    numericScale: numeric && typmod ? Number(typmod[2] ?? 0) : null,
    jsonChecked,
  });
  return { name, dataType: columnType, engineType };
}

/** A SQL Server column of a system type (`maxLength` in bytes, -1 for max). */
export function sqlServerColumn(name: string, typeName: string, precision = 0, scale = 0, maxLength = 8): ColumnInfo {
  const facts = { typeName, baseTypeName: typeName, isAssemblyType: false, maxLength, precision, scale };
  return { name, dataType: formatDataType(facts), engineType: describeSqlServer(facts) };
}

/** An Oracle column from ALL_TAB_COLUMNS' DATA_TYPE, DATA_PRECISION and DATA_SCALE. */
export function oracleColumn(name: string, dataType: string, precision: number | null = null, scale: number | null = null): ColumnInfo {
  const facts = { dataType, precision, scale, charLength: null, typeOwner: null };
  return { name, dataType: displayType(facts), engineType: describeOracle(facts) };
}

/** A MongoDB field with the BSON types sampling saw at its path. */
export function mongoField(name: string, ...bsonTypes: BsonTypeName[]): ColumnInfo {
  return { name, dataType: bsonTypes.join('|') || 'unknown', engineType: { bsonTypes } };
}
