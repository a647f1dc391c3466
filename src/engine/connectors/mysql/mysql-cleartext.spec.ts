import type { Connection } from 'mysql2';
import { describe, expect, it } from 'vitest';
import { PlaintextPasswordRefusedError } from '../shared/plaintext-password.js';
import { connectionOptions } from './mysql-client.js';
import { clearPasswordPlugin } from './mysql-cleartext.js';
import { DatasourceType } from '../datasource-type.js';

const over = (encrypted: boolean) => ({ connection: { stream: { encrypted } } as unknown as Connection, command: '' });
const answer = (refuse: boolean, encrypted: boolean) =>
  Promise.resolve(clearPasswordPlugin('s3cret', refuse)(over(encrypted))(Buffer.alloc(0)));

describe('mysql_clear_password', () => {
  it('refuses to answer over a socket without TLS when plaintext passwords are not allowed', async () => {
    const refused = await answer(true, false).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(PlaintextPasswordRefusedError);
    expect((refused as Error).message).not.toContain('s3cret');
    expect((refused as Error).message).toContain('ALLOW_PLAINTEXT_PASSWORD=true');
  });

  it('answers the NUL-terminated password over TLS, or anywhere when allowed', async () => {
    await expect(answer(true, true)).resolves.toEqual(Buffer.from('s3cret\0'));
    await expect(answer(false, false)).resolves.toEqual(Buffer.from('s3cret\0'));
  });

  it('is the plugin every connection is given', async () => {
    const ds = {
      id: 'x',
      configName: 'my',
      type: DatasourceType.MySQL,
      host: 'db.example',
      port: 3306,
      databaseName: 'd',
      schemaName: null,
      userName: 'u',
      password: 's3cret',
      ssl: { mode: null },
      metadata: {},
      productName: null,
      internal: false,
    };
    const plugin = connectionOptions(ds, undefined, 1_000, { allowPlaintextPassword: false }).authPlugins?.mysql_clear_password;
    await expect(Promise.resolve(plugin!(over(false))(Buffer.alloc(0)))).rejects.toBeInstanceOf(PlaintextPasswordRefusedError);
  });
});
