import type { ColumnInfo } from '../../shared/engine-connector.js';
import { describeColumnType } from '../mysql-types.js';

/** A column as information_schema describes it: DATA_TYPE, COLUMN_TYPE (the former unless given), precision and scale. */
export const mysqlColumn = (
  name: string,
  dataType: string,
  columnType = dataType,
  precision: number | null = null,
  scale: number | null = null,
): ColumnInfo => ({
  name,
  dataType: columnType,
  engineType: describeColumnType({ dataType, columnType, numericPrecision: precision, numericScale: scale, jsonChecked: false }),
});
