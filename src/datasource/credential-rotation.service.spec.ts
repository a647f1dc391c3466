import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DataSource, QueryDeepPartialEntity, Repository } from 'typeorm';
import { v7 as uuidv7 } from 'uuid';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTempDatabase, type TempDatabase } from '../../test/helpers/pg-database.js';
import { loadAppConfig } from '../config/load-config.js';
import { openDataSource } from '../persistence/persistence.module.js';
import { storeOptions } from '../bootstrap/store-schema.js';
import { CONNECTION_ENTITY, type ConnectionRecord } from './connection.entity.js';
import { CredentialCipher } from './credential-cipher.service.js';
import { CredentialRotation, type SecretColumns, type StoredSecrets } from './credential-rotation.service.js';
import { openSealedCredential as openWith } from './testing/service-datasources.js';

const KEY_0 = randomBytes(32).toString('base64');
const KEY_1 = randomBytes(32).toString('base64');
const KEY_2 = randomBytes(32).toString('base64');

describe.each(['sqlite', 'postgres'] as const)('CredentialRotation on %s', (kind) => {
  let dataDir: string;
  let pgDatabase: TempDatabase | undefined;
  let dataSource: DataSource;
  let rows: Repository<ConnectionRecord>;
  const env = (extra: Record<string, string>) => ({ DATA_DIR: dataDir, ...(pgDatabase ? { DATABASE_URL: pgDatabase.url } : {}), ...extra });
  const cipher = (extra: Record<string, string>) => new CredentialCipher(loadAppConfig(env(extra)));
  let v1: CredentialCipher;
  let v2: CredentialCipher;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'fetcher-rotation-'));
    if (kind === 'postgres') pgDatabase = await createTempDatabase('credential_rotation');
    dataSource = await openDataSource(storeOptions(loadAppConfig(env({ APP_ENC_KEY: KEY_1 }))));
    rows = dataSource.getRepository<ConnectionRecord>(CONNECTION_ENTITY);
    v1 = cipher({ APP_ENC_KEY: KEY_1 });
    v2 = cipher({ APP_ENC_KEY: KEY_2, APP_ENC_KEY_VERSION: '2', APP_ENC_KEY_1: KEY_1 });
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await pgDatabase?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function insert(
    name: string,
    by: CredentialCipher,
    secrets: { password: string; ca?: string; cert?: string; key?: string },
    deleted = false,
  ): Promise<string> {
    const now = new Date();
    const record: ConnectionRecord = {
      id: uuidv7(),
      productName: 'reporter',
      configName: `${name}_${randomBytes(3).toString('hex')}`,
      type: 'POSTGRESQL' as ConnectionRecord['type'],
      host: 'db.example.com',
      port: 5432,
      databaseName: 'x',
      schemaName: null,
      userName: 'u',
      passwordEncrypted: secrets.password === '' ? '' : by.encrypt(secrets.password),
      sslMode: null,
      sslCaEncrypted: by.encryptOptional(secrets.ca),
      sslCertEncrypted: by.encryptOptional(secrets.cert),
      sslKeyEncrypted: by.encryptOptional(secrets.key),
      encryptionKeyVersion: by.keyVersion,
      metadata: null,
      createdAt: now,
      updatedAt: now,
      deletedAt: deleted ? now : null,
    };
    await rows.insert(record as QueryDeepPartialEntity<ConnectionRecord>);
    return record.id;
  }

  const load = async (id: string) => (await rows.findOneBy({ id })) as ConnectionRecord;

  it('re-encrypts live, soft-deleted and cleared rows under the current version, and a second run does nothing', async () => {
    await rows.clear();
    const full = await insert('full', v1, { password: 'pw-full', ca: 'CA-PEM', cert: 'CERT-PEM', key: 'KEY-PEM' });
    const plain = await insert('plain', v1, { password: 'pw-plain' });
    const deleted = await insert('deleted', v1, { password: 'pw-deleted', key: 'KEY-DELETED' }, true);
    const cleared = await insert('cleared', v1, { password: '' });
    const current = await insert('current', v2, { password: 'pw-current' });
    const currentBefore = await load(current);

    const dry = await new CredentialRotation(dataSource, v2).rotate({ dryRun: true });
    expect(dry).toMatchObject({
      dryRun: true,
      currentVersion: '2',
      rewritten: 4,
      alreadyCurrent: 1,
      skippedConcurrent: 0,
      failed: [],
      remaining: null,
    });
    expect((await load(full)).encryptionKeyVersion).toBe('1');

    const report = await new CredentialRotation(dataSource, v2, 2).rotate();
    expect(report).toMatchObject({ dryRun: false, rewritten: 4, alreadyCurrent: 1, skippedConcurrent: 0, failed: [], remaining: 0 });

    const after = await Promise.all([full, plain, deleted, cleared].map(load));
    expect(after.map((row) => row.encryptionKeyVersion)).toEqual(['2', '2', '2', '2']);
    const [fullRow, plainRow, deletedRow, clearedRow] = after as [ConnectionRecord, ConnectionRecord, ConnectionRecord, ConnectionRecord];
    expect(
      [fullRow.passwordEncrypted, fullRow.sslCaEncrypted, fullRow.sslCertEncrypted, fullRow.sslKeyEncrypted].map((sealed) =>
        openWith(KEY_2, sealed as string),
      ),
    ).toEqual(['pw-full', 'CA-PEM', 'CERT-PEM', 'KEY-PEM']);
    expect(openWith(KEY_2, plainRow.passwordEncrypted)).toBe('pw-plain');
    expect([plainRow.sslCaEncrypted, plainRow.sslCertEncrypted, plainRow.sslKeyEncrypted]).toEqual([null, null, null]);
    expect(openWith(KEY_2, deletedRow.sslKeyEncrypted as string)).toBe('KEY-DELETED');
    expect(deletedRow.deletedAt).not.toBeNull();
    expect(clearedRow.passwordEncrypted).toBe('');
    expect(await load(current)).toEqual(currentBefore);

    const again = await new CredentialRotation(dataSource, v2).rotate();
    expect(again).toMatchObject({ rewritten: 0, alreadyCurrent: 5, skippedConcurrent: 0, failed: [], remaining: 0 });
  });

  it('reports a row whose version is not configured as failed, naming the variable, and leaves it as it was', async () => {
    await rows.clear();
    const orphan = await insert('orphan', cipher({ APP_ENC_KEY: KEY_0, APP_ENC_KEY_VERSION: '0' }), { password: 'pw-orphan' });
    const before = await load(orphan);
    const good = await insert('good', v1, { password: 'pw-good' });

    const report = await new CredentialRotation(dataSource, v2).rotate();
    expect(report.rewritten).toBe(1);
    expect(report.remaining).toBe(1);
    expect(report.failed).toEqual([
      { id: orphan, configName: before.configName, keyVersion: '0', message: expect.stringContaining('set APP_ENC_KEY_0') },
    ]);
    expect(JSON.stringify(report)).not.toContain(KEY_0);
    expect(await load(orphan)).toEqual(before);
    expect((await load(good)).encryptionKeyVersion).toBe('2');
  });

  it('leaves a row that a PATCH changed between read and write as the PATCH wrote it', async () => {
    await rows.clear();
    const raced = await insert('raced', v1, { password: 'pw-old', ca: 'CA-OLD' });
    const calm = await insert('calm', v1, { password: 'pw-calm' });
    const patchedPassword = v2.encrypt('pw-patched');

    class Interleaved extends CredentialRotation {
      protected override async replace(row: StoredSecrets, next: SecretColumns): Promise<boolean> {
        // What ConnectionService.update does meanwhile: a new password, the rest resealed, current version.
        if (row.id === raced)
          await rows.update(
            { id: raced },
            { passwordEncrypted: patchedPassword, sslCaEncrypted: v2.encrypt('CA-OLD'), encryptionKeyVersion: '2' },
          );
        return super.replace(row, next);
      }
    }
    const report = await new Interleaved(dataSource, v2).rotate();
    expect(report).toMatchObject({ rewritten: 1, skippedConcurrent: 1, failed: [], remaining: 0 });
    const racedRow = await load(raced);
    expect(racedRow.passwordEncrypted).toBe(patchedPassword);
    expect(openWith(KEY_2, racedRow.sslCaEncrypted as string)).toBe('CA-OLD');
    expect(openWith(KEY_2, (await load(calm)).passwordEncrypted)).toBe('pw-calm');
  });

  it('counts a row that an old-version writer changed meanwhile as still remaining', async () => {
    await rows.clear();
    const raced = await insert('stale_writer', v1, { password: 'pw-old' });
    class StaleWriter extends CredentialRotation {
      protected override async replace(row: StoredSecrets, next: SecretColumns): Promise<boolean> {
        // A process not yet restarted with the new key PATCHes under version 1.
        await rows.update({ id: row.id }, { passwordEncrypted: v1.encrypt('pw-stale') });
        return super.replace(row, next);
      }
    }
    const report = await new StaleWriter(dataSource, v2).rotate();
    expect(report).toMatchObject({ rewritten: 0, skippedConcurrent: 1, remaining: 1 });
    expect(openWith(KEY_1, (await load(raced)).passwordEncrypted)).toBe('pw-stale');
  });
});
