import { DatasourceType } from '../../datasource-type.js';
import { datasourceRecord } from '../../../testing/datasource-records.js';
import type { ColumnInfo, ResolvedDatasource, TableInfo } from '../../shared/engine-connector.js';
import { describeColumnType, formatDataType } from '../sqlserver-types.js';

/** A decrypted SQL Server connection record pointing at a local (fake) server. */
export function fakeDatasource(port: number, overrides: Partial<ResolvedDatasource> = {}): ResolvedDatasource {
  const place = { host: '127.0.0.1', port, name: 'ledger', user: 'svc_fetch', password: 'hunter2-very-secret' };
  return datasourceRecord(DatasourceType.SqlServer, 'mssql_fake', place, { id: '00000000-0000-4000-8000-00000000d0b0', ...overrides });
}

/** A column as discovery describes it, from its declared type (`decimal(12,2)` → precision 12, scale 2). */
export function column(name: string, type: string): ColumnInfo {
  const m = /^(\w+)(?:\((max|\d+)(?:,(\d+))?\))?$/.exec(type);
  if (m === null) throw new Error(`bad type ${type}`);
  const [, base, size, scale] = m;
  const unicode = base === 'nvarchar' || base === 'nchar';
  const decimal = base === 'decimal' || base === 'numeric';
  const facts = {
    typeName: base,
    baseTypeName: base,
    isAssemblyType: ['geography', 'geometry', 'hierarchyid'].includes(base),
    maxLength: size === 'max' ? -1 : size !== undefined && !decimal ? Number(size) * (unicode ? 2 : 1) : 8,
    precision: decimal ? Number(size) : base === 'int' ? 10 : base === 'bigint' ? 19 : base === 'money' ? 19 : 0,
    scale: decimal
      ? Number(scale ?? 0)
      : base === 'money'
        ? 4
        : ['datetime2', 'datetimeoffset', 'time'].includes(base)
          ? Number(size ?? 7)
          : 0,
  };
  return { name, dataType: formatDataType(facts), engineType: describeColumnType(facts) };
}

export function tableOf(schema: string, name: string, columns: readonly ColumnInfo[], primaryKey: readonly string[] = []): TableInfo {
  return { schema, name, key: schema === 'dbo' ? name : `${schema}.${name}`, columns, primaryKey };
}
