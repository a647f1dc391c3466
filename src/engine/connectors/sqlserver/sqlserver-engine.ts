import { defineEngine } from '../shared/engine-definition.js';

/** SQL Server and Azure SQL; the SSL modes are go-mssqldb's `encrypt` values (sqlserver-ssl.ts maps them onto tedious). */
export const SQLSERVER_ENGINE = defineEngine({
  type: 'SQL_SERVER',
  label: 'SQL Server',
  defaultPort: 1433,
  ssl: { modes: ['disable', 'false', 'true', 'strict'], defaultMode: 'disable' },
});
