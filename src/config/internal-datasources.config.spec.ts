import { describe, expect, it } from 'vitest';
import { internalDatasourceId, parseInternalDatasources } from './internal-datasources.config.js';

describe('parseInternalDatasources', () => {
  it('reads every DATASOURCE_<NAME>_* group, with OPTIONS into metadata and the engine default port', () => {
    const { datasources, problems } = parseInternalDatasources({
      DATASOURCE_MIDAZ_ONBOARDING_CONFIG_NAME: 'midaz_onboarding',
      DATASOURCE_MIDAZ_ONBOARDING_TYPE: 'POSTGRESQL',
      DATASOURCE_MIDAZ_ONBOARDING_HOST: 'db',
      DATASOURCE_MIDAZ_ONBOARDING_DATABASE: 'onboarding',
      DATASOURCE_MIDAZ_ONBOARDING_USER: 'app',
      DATASOURCE_MIDAZ_ONBOARDING_PASSWORD: 'pw',
      DATASOURCE_MIDAZ_ONBOARDING_SSLMODE: 'require',
      DATASOURCE_CRM_CONFIG_NAME: 'plugin_crm',
      DATASOURCE_CRM_TYPE: 'MONGODB',
      DATASOURCE_CRM_HOST: 'mongo',
      DATASOURCE_CRM_DATABASE: 'crm',
      DATASOURCE_CRM_OPTIONS: 'authSource=admin&directConnection=true',
    });
    expect(problems).toEqual([]);
    expect(datasources.map((d) => [d.configName, d.port, d.ssl.mode, d.metadata])).toEqual([
      ['plugin_crm', 27017, null, { authSource: 'admin', directConnection: 'true' }],
      ['midaz_onboarding', 5432, 'require', {}],
    ]);
  });

  it('gives the ids the original service gives (UUIDv5 of "/<configName>")', () => {
    expect(internalDatasourceId('plugin_crm')).toBe('8de55b81-916c-5ec9-bee3-7c05e8f32f29');
    expect(internalDatasourceId('midaz_onboarding')).toBe('d23dda0c-5f1a-5d94-a584-ea056a9fa8c1');
  });

  it('names the variable of every problem', () => {
    const { problems } = parseInternalDatasources({
      DATASOURCE_A_CONFIG_NAME: 'dup',
      DATASOURCE_A_TYPE: 'POSTGRESQL',
      DATASOURCE_A_HOST: 'h',
      DATASOURCE_A_DATABASE: 'd',
      DATASOURCE_B_CONFIG_NAME: 'dup',
      DATASOURCE_B_TYPE: 'POSTGRES',
      DATASOURCE_B_DATABASE: 'd',
      DATASOURCE_B_PORT: '99999',
      DATASOURCE_B_SSLMODE: 'REQUIRE',
    });
    expect(problems).toEqual([
      "DATASOURCE_B_CONFIG_NAME: 'dup' is already declared by DATASOURCE_A_CONFIG_NAME",
      'DATASOURCE_B_TYPE: must be one of POSTGRESQL, MYSQL, SQL_SERVER, ORACLE, MONGODB',
      'DATASOURCE_B_HOST: is required',
      'DATASOURCE_B_PORT: must be an integer from 1 to 65535',
    ]);
  });

  it("checks each engine's SSL modes (as written) and required metadata, and uses its default port", () => {
    const { datasources, problems } = parseInternalDatasources({
      DATASOURCE_ERP_CONFIG_NAME: 'erp',
      DATASOURCE_ERP_TYPE: 'ORACLE',
      DATASOURCE_ERP_HOST: 'ora',
      DATASOURCE_ERP_DATABASE: 'erp',
      DATASOURCE_ERP_SSLMODE: 'verify-full',
      DATASOURCE_SHOP_CONFIG_NAME: 'shop',
      DATASOURCE_SHOP_TYPE: 'MYSQL',
      DATASOURCE_SHOP_HOST: 'maria',
      DATASOURCE_SHOP_DATABASE: 'shop',
      DATASOURCE_SHOP_SSLMODE: 'preferred',
      DATASOURCE_MSSQL_CONFIG_NAME: 'mssql',
      DATASOURCE_MSSQL_TYPE: 'SQL_SERVER',
      DATASOURCE_MSSQL_HOST: 'sql',
      DATASOURCE_MSSQL_DATABASE: 'crm',
      DATASOURCE_MSSQL_SSLMODE: 'Strict',
    });
    expect(problems).toEqual([
      'DATASOURCE_ERP_SSLMODE: must be one of disable, false, true, enable, verify, skip-verify',
      'DATASOURCE_ERP_OPTIONS: Oracle needs serviceName=…',
      'DATASOURCE_MSSQL_SSLMODE: must be one of disable, false, true, strict',
    ]);
    expect(datasources.map((d) => [d.configName, d.port, d.ssl.mode])).toEqual([['shop', 3306, 'preferred']]);
  });
});
