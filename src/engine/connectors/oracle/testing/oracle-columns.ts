import type { ColumnInfo } from '../../shared/engine-connector.js';
import { describeColumnType } from '../oracle-types.js';

/** A column as the Oracle catalog describes it: ALL_TAB_COLUMNS' type, precision and scale. */
export const oracleColumn = (name: string, dataType: string, precision: number | null = null, scale: number | null = null): ColumnInfo => ({
  name,
  dataType,
  engineType: describeColumnType({ dataType, precision, scale, charLength: null }),
});
