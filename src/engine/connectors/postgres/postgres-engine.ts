import { defineEngine } from '../shared/engine-definition.js';

/** PostgreSQL; the SSL modes are libpq's `sslmode` values (postgres-ssl.ts maps them onto node-pg). */
export const POSTGRES_ENGINE = defineEngine({
  type: 'POSTGRESQL',
  label: 'PostgreSQL',
  defaultPort: 5432,
  ssl: { modes: ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'], defaultMode: 'disable' },
});
