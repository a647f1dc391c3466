export enum DatasourceType {
  PostgreSQL = 'POSTGRESQL',
  MySQL = 'MYSQL',
  SqlServer = 'SQL_SERVER',
  Oracle = 'ORACLE',
  MongoDB = 'MONGODB',
}

export const DATASOURCE_TYPES = Object.values(DatasourceType);
