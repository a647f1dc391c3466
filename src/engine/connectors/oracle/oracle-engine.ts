import { defineEngine } from '../shared/engine-definition.js';

/**
 * Oracle Database; the SSL modes are the original service's (docs/compatibility.md#tls-modes) (oracle-ssl.ts maps them onto
 * node-oracledb). A connection names its database service in `metadata.serviceName`.
 */
export const ORACLE_ENGINE = defineEngine({
  type: 'ORACLE',
  label: 'Oracle',
  defaultPort: 1521,
  ssl: { modes: ['disable', 'false', 'true', 'enable', 'verify', 'skip-verify'], defaultMode: 'disable' },
  requiredMetadata: ['serviceName'],
  // serviceName is the database (databaseName is not read); sslServerCertDN pins the server certificate's DN.
  identityMetadata: ['serviceName', 'sslServerCertDN'],
});
