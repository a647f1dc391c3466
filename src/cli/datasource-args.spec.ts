import { describe, expect, it } from 'vitest';
import { UsageError } from './cli-io.js';
import { datasourceUrls, datasourceVariable, urlFrom } from './datasource-args.js';

const usage = (work: () => unknown): string => {
  try {
    work();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error('expected a usage error');
};

describe('datasource arguments', () => {
  const env = { PG_URL: 'postgres://u:secret@db/x', FETCHER_DATASOURCE_MARIA_CRM: 'mysql://root@db/crm' };

  it('takes name=url and name=env:VAR, and FETCHER_DATASOURCE_<NAME> for names the command line does not give', () => {
    expect(datasourceUrls(['pg=env:PG_URL', 'm=mysql://h/db'], ['pg', 'm', 'maria-crm'], env)).toEqual({
      pg: 'postgres://u:secret@db/x',
      m: 'mysql://h/db',
      'maria-crm': 'mysql://root@db/crm',
    });
  });

  it('names the variable of a config name: upper case, other characters as _', () => {
    expect(datasourceVariable('maria-crm.v2')).toBe('FETCHER_DATASOURCE_MARIA_CRM_V2');
  });

  it('refuses a malformed entry, a name given twice, an unset variable and a datasource with no URL, naming each', () => {
    expect(usage(() => datasourceUrls(['pg'], ['pg'], env))).toMatch(/--datasource: expected <name>=<url>/);
    expect(usage(() => datasourceUrls(['=postgres://h/d'], ['pg'], env))).toMatch(/--datasource: expected <name>=<url>/);
    expect(usage(() => datasourceUrls(['pg=a', 'pg=b'], ['pg'], env))).toBe('--datasource: pg is given twice');
    expect(usage(() => datasourceUrls(['pg=env:NOPE'], ['pg'], env))).toBe('--datasource pg: environment variable NOPE is not set');
    expect(usage(() => datasourceUrls([], ['other'], env))).toBe(
      "no URL for datasource 'other': give --datasource other=<url> or set FETCHER_DATASOURCE_OTHER",
    );
  });

  it('never echoes a URL it read from the environment', () => {
    expect(urlFrom('env:PG_URL', env, '<url>')).toBe(env.PG_URL);
    expect(usage(() => urlFrom('env:1BAD', env, '<url>'))).toBe('<url>: env:1BAD is not a variable name');
  });
});
