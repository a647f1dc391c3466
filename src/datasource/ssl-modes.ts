import { DatasourceType } from './datasource-type.js';

/** SSL/TLS modes each engine accepts (case-sensitive); an empty or absent mode means the driver default. */
export const SSL_MODES: Readonly<Record<DatasourceType, readonly string[]>> = {
  [DatasourceType.PostgreSQL]: ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'],
  [DatasourceType.MySQL]: ['false', 'true', 'skip-verify', 'preferred'],
  [DatasourceType.SqlServer]: ['disable', 'false', 'true', 'strict'],
  [DatasourceType.Oracle]: ['disable', 'false', 'true', 'enable', 'verify', 'skip-verify'],
  [DatasourceType.MongoDB]: ['disable', 'false', 'true', 'enable', 'insecure'],
};

export function isValidSslMode(type: DatasourceType, mode: string | null | undefined): boolean {
  return mode === undefined || mode === null || mode === '' || SSL_MODES[type].includes(mode);
}
