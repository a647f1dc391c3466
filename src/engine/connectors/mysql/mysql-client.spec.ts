import { describe, expect, it } from 'vitest';
import { DatasourceType } from '../datasource-type.js';
import type { ResolvedDatasource } from '../shared/engine-connector.js';
import { connectionOptions, SESSION_SETUP_SQL } from './mysql-client.js';
import { datasourceRecord } from '../../testing/datasource-records.js';

const DS: ResolvedDatasource = datasourceRecord(
  DatasourceType.MySQL,
  'ledger_db',
  { host: 'db.example', port: 3307, name: 'led@ger/db', user: 'svc user', password: 'p@ss:w/rd?&=+ %' },
  { id: 'id-1' },
);

describe('mysql2 connection options', () => {
  it('passes every coordinate structurally, characters that a DSN would mangle included', () => {
    const options = connectionOptions(DS, undefined, 2500);
    expect(options).toMatchObject({
      host: 'db.example',
      port: 3307,
      user: 'svc user',
      password: 'p@ss:w/rd?&=+ %',
      database: 'led@ger/db',
      connectTimeout: 2500,
    });
    expect(options).not.toHaveProperty('uri');
    expect(options).not.toHaveProperty('ssl');
  });

  it('keeps values as the server sends them and refuses multi-statements and local files', () => {
    expect(connectionOptions(DS, undefined, 0)).toMatchObject({
      connectTimeout: 0,
      charset: 'UTF8MB4',
      supportBigNumbers: true,
      bigNumberStrings: true,
      decimalNumbers: false,
      dateStrings: true,
      jsonStrings: true,
      rowsAsArray: true,
      multipleStatements: false,
      flags: ['-LOCAL_FILES'],
    });
  });

  it('hands the TLS options over as planned', () => {
    const ssl = { ca: 'CA', rejectUnauthorized: true, verifyIdentity: true };
    expect(connectionOptions(DS, ssl, 1000).ssl).toBe(ssl);
  });

  it('sets the session to UTC, long network timeouts and backslash escapes in one statement', () => {
    expect(SESSION_SETUP_SQL).toMatch(
      /^SET SESSION time_zone = '\+00:00', net_write_timeout = \d{4,}, net_read_timeout = \d{3,}, sql_mode = /,
    );
    expect(SESSION_SETUP_SQL).toContain("',NO_BACKSLASH_ESCAPES,'");
  });
});
