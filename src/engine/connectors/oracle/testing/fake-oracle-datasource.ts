import { DatasourceType } from '../../datasource-type.js';
import { datasourceRecord } from '../../../testing/datasource-records.js';
import type { ResolvedDatasource } from '../../shared/engine-connector.js';
import type { FakeOracleAnswer } from './fake-oracle-server.js';

export const FAKE_ORACLE_PASSWORD = 'tiger-very-secret';

/** A decrypted Oracle connection record pointing at a local fake server (login FETCHER). */
export function fakeOracleDatasource(port: number, overrides: Partial<ResolvedDatasource> = {}): ResolvedDatasource {
  const place = { host: '127.0.0.1', port, name: '', user: 'fetcher', password: FAKE_ORACLE_PASSWORD };
  const metadata = { serviceName: 'FREEPDB1' };
  return datasourceRecord(DatasourceType.Oracle, 'oracle_fake', place, {
    id: '00000000-0000-4000-8000-000000000ac1',
    metadata,
    ...overrides,
  });
}

/** One table of FETCHER: its columns as (name, ALL_TAB_COLUMNS.DATA_TYPE), primary key first. */
export interface FakeOracleTable {
  readonly name: string;
  readonly columns: readonly (readonly [string, string])[];
}

/**
 * The answers to the connector's own statements (session setup, both catalog queries) for these
 * tables; undefined for anything else, which the test answers.
 */
export function catalogAnswer(tables: readonly FakeOracleTable[]): (sql: string) => FakeOracleAnswer | undefined {
  return (sql) => {
    if (sql.startsWith('ALTER SESSION')) return { done: true };
    if (sql.includes('FROM ALL_TAB_COLUMNS')) {
      return {
        columns: [
          'OWNER',
          'TABLE_NAME',
          'COLUMN_NAME',
          'DATA_TYPE',
          'DATA_PRECISION',
          'DATA_SCALE',
          'CHAR_LENGTH',
          'DATA_LENGTH',
          'DATA_TYPE_OWNER',
        ],
        rows: tables.flatMap((t) =>
          t.columns.map(([column, type]) => [
            'FETCHER',
            t.name,
            column,
            type,
            type === 'NUMBER' ? '10' : null,
            type === 'NUMBER' ? '0' : null,
            null,
            null,
            null,
          ]),
        ),
      };
    }
    if (sql.includes('FROM ALL_CONSTRAINTS'))
      return { columns: ['OWNER', 'TABLE_NAME', 'COLUMN_NAME'], rows: tables.map((t) => ['FETCHER', t.name, t.columns[0][0]]) };
    return undefined;
  };
}
