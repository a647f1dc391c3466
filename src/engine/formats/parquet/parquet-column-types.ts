import type { ColumnInfo } from '../../connectors/shared/engine-connector.js';
import type { EngineType } from '../../connectors/shared/engine-facts.js';
import { mongoColumnOf } from './parquet-mongodb-types.js';
import { mysqlColumnOf } from './parquet-mysql-types.js';
import { oracleColumnOf } from './parquet-oracle-types.js';
import { postgresColumnOf } from './parquet-postgres-types.js';
import { sqlServerColumnOf } from './parquet-sqlserver-types.js';
import type { ParquetColumnType } from './parquet-leaf.js';

/**
 * The Parquet type of one projected column, fixed from discovery before the first row is read
 * (docs/formats-parquet.md). Each engine's table follows docs/value-mapping.md: a column's type is
 * what every JSON value its type can render fits in without a change, or a string column where no
 * Parquet type holds them all (numeric with NaN, offsets, more than microseconds, more than 38 digits).
 */
export function parquetColumnOf(engine: EngineType, column: ColumnInfo): ParquetColumnType {
  switch (engine) {
    case 'POSTGRESQL':
      return postgresColumnOf(column);
    case 'MYSQL':
      return mysqlColumnOf(column);
    case 'SQL_SERVER':
      return sqlServerColumnOf(column);
    case 'ORACLE':
      return oracleColumnOf(column);
    case 'MONGODB':
      return mongoColumnOf(column);
    default:
      return { leaf: { type: 'text' }, list: false };
  }
}
