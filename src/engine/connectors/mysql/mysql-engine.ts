import { defineEngine } from '../shared/engine-definition.js';

/** MySQL and MariaDB; the SSL modes are go-sql-driver's `tls` values (mysql-ssl.ts maps them onto mysql2). */
export const MYSQL_ENGINE = defineEngine({
  type: 'MYSQL',
  label: 'MySQL',
  defaultPort: 3306,
  ssl: { modes: ['false', 'true', 'skip-verify', 'preferred'], defaultMode: 'false' },
});
