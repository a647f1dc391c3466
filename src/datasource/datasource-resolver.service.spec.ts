import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { AppConfig } from '../config/app-config.js';
import { parseInternalDatasources } from '../config/internal-datasources.config.js';
import { FetCode } from '../engine/errors/fet-code.js';
import type { ConnectionRecord } from './connection.entity.js';
import type { ConnectionRepository } from './connection.repository.js';
import { CredentialCipher } from './credential-cipher.service.js';
import { DatasourceResolver } from './datasource-resolver.service.js';
import { InternalDatasources } from './internal/internal-datasources.service.js';

const { datasources: internalDatasources } = parseInternalDatasources({
  DATASOURCE_WAREHOUSE_CONFIG_NAME: 'warehouse',
  DATASOURCE_WAREHOUSE_TYPE: 'POSTGRESQL',
  DATASOURCE_WAREHOUSE_HOST: 'warehouse.internal',
  DATASOURCE_WAREHOUSE_DATABASE: 'dwh',
  DATASOURCE_WAREHOUSE_PRODUCTS: 'alpha',
});
const config = {
  encryption: { masterKey: randomBytes(32), keyVersion: '1', generated: false, keyring: new Map() },
  internalDatasources,
} as unknown as AppConfig;
const cipher = new CredentialCipher(config);

function record(id: string, configName: string, productName: string | null, overrides: Partial<ConnectionRecord> = {}): ConnectionRecord {
  const at = new Date('2026-03-01T10:00:00Z');
  return {
    id,
    productName,
    configName,
    type: 'postgres',
    host: `${id}.example.com`,
    port: 5432,
    databaseName: 'app',
    schemaName: null,
    userName: 'reader',
    passwordEncrypted: cipher.encrypt(`password-of-${id}`),
    sslMode: null,
    sslCaEncrypted: null,
    sslCertEncrypted: null,
    sslKeyEncrypted: null,
    encryptionKeyVersion: '1',
    metadata: null,
    createdAt: at,
    updatedAt: at,
    deletedAt: null,
    ...overrides,
  } as ConnectionRecord;
}

/** Live rows, filtered by name and product as the repository's query does. */
function resolverOver(rows: ConnectionRecord[]): DatasourceResolver {
  const live = () => rows.filter((row) => row.deletedAt === null);
  const repository = {
    findById: async (id: string) => live().find((row) => row.id === id) ?? null,
    findByConfigNames: async (names: readonly string[], products: readonly string[] | 'all') =>
      live().filter(
        (row) => names.includes(row.configName) && (products === 'all' || (row.productName !== null && products.includes(row.productName))),
      ),
  } as unknown as ConnectionRepository;
  return new DatasourceResolver(repository, new InternalDatasources(config), cipher);
}

describe('DatasourceResolver', () => {
  const alphaDb = record('a1', 'shared_name', 'alpha');
  const betaDb = record('b1', 'shared_name', 'beta');

  it("resolves a name within the scope's products only: another product's connection of that name stays unknown", async () => {
    const resolver = resolverOver([alphaDb, betaDb]);
    const forBeta = await resolver.resolve(['shared_name'], ['beta']);
    expect(forBeta.get('shared_name')).toMatchObject({ id: 'b1', password: 'password-of-b1' });
    expect((await resolver.resolve(['shared_name'], ['gamma'])).size).toBe(0);
  });

  it('opens an internal datasource only to the products it serves', async () => {
    const resolver = resolverOver([]);
    expect((await resolver.resolve(['warehouse'], ['alpha'])).get('warehouse')).toMatchObject({ internal: true });
    expect((await resolver.resolve(['warehouse'], ['beta'])).size).toBe(0);
    expect((await resolver.resolve(['warehouse'], 'all')).size).toBe(1);
  });

  it('asks for X-Product-Name (FET-0403) when a name exists in several products of the scope', async () => {
    const resolver = resolverOver([alphaDb, betaDb]);
    await expect(resolver.resolve(['shared_name'], 'all')).rejects.toMatchObject({
      code: FetCode.InvalidHeader,
      message: "'shared_name' names a connection in several products (alpha, beta): name the product in the X-Product-Name header",
    });
  });

  describe('session reuse scope', () => {
    it('scopes a stored connection’s sessions to its product and its version (updatedAt), for submission and worker alike', async () => {
      const resolver = resolverOver([alphaDb]);
      const submitted = (await resolver.resolve(['shared_name'], ['alpha'])).get('shared_name');
      const recorded = (await resolver.resolveRecorded([{ configName: 'shared_name', connectionId: 'a1' }], 'alpha')).get('shared_name');
      expect(submitted?.reuseScope).toBe('alpha@2026-03-01T10:00:00.000Z');
      expect(recorded?.reuseScope).toBe(submitted?.reuseScope);
      const patched = record('a1', 'shared_name', 'alpha', { updatedAt: new Date('2026-03-01T10:00:00.001Z') });
      expect((await resolverOver([patched]).resolve(['shared_name'], ['alpha'])).get('shared_name')?.reuseScope).toBe(
        'alpha@2026-03-01T10:00:00.001Z',
      );
    });

    it('never pools an unassigned connection, and pools an internal datasource per product, never across the scope', async () => {
      const unassigned = record('u1', 'orphan', null);
      expect(resolverOver([unassigned]).fromRecord(unassigned).reuseScope).toBeUndefined();
      const resolver = resolverOver([]);
      expect((await resolver.resolve(['warehouse'], ['alpha'])).get('warehouse')?.reuseScope).toBe('internal:alpha');
      expect((await resolver.resolve(['warehouse'], 'all')).get('warehouse')?.reuseScope).toBeUndefined();
    });
  });

  describe('resolveRecorded', () => {
    it("loads the very connection a job recorded, under the job's name for it, even if it was renamed since", async () => {
      const renamed = record('b1', 'renamed_since', 'beta');
      const resolved = await resolverOver([renamed]).resolveRecorded([{ configName: 'shared_name', connectionId: 'b1' }], 'beta');
      expect(resolved.get('shared_name')).toMatchObject({ id: 'b1', configName: 'shared_name', host: 'b1.example.com' });
    });

    it("fails with FET-1020 when the recorded connection was deleted, even though another product's connection now has its name", async () => {
      const deleted = record('b1', 'shared_name', 'beta', { deletedAt: new Date() });
      const resolver = resolverOver([deleted, alphaDb]);
      await expect(resolver.resolveRecorded([{ configName: 'shared_name', connectionId: 'b1' }], 'beta')).rejects.toMatchObject({
        code: FetCode.MissingDatasource,
        message: expect.stringContaining("Connection 'shared_name' was deleted, or no longer belongs to the job's product"),
      });
    });

    it("fails with FET-1020 when the recorded id holds another product's connection", async () => {
      const resolver = resolverOver([alphaDb]);
      await expect(resolver.resolveRecorded([{ configName: 'shared_name', connectionId: 'a1' }], 'beta')).rejects.toMatchObject({
        code: FetCode.MissingDatasource,
      });
    });

    it("fails with FET-1020 for a recorded internal datasource no longer open to the job's product", async () => {
      const warehouse = internalDatasources[0];
      const resolver = resolverOver([]);
      await expect(resolver.resolveRecorded([{ configName: 'warehouse', connectionId: warehouse.id }], 'alpha')).resolves.toHaveProperty(
        'size',
        1,
      );
      await expect(resolver.resolveRecorded([{ configName: 'warehouse', connectionId: warehouse.id }], 'beta')).rejects.toMatchObject({
        code: FetCode.MissingDatasource,
      });
    });

    it("resolves a row recorded before jobs kept ids by its name, within the job's product only", async () => {
      const resolver = resolverOver([alphaDb, betaDb]);
      const resolved = await resolver.resolveRecorded([{ configName: 'shared_name', connectionId: null }], 'beta');
      expect(resolved.get('shared_name')).toMatchObject({ id: 'b1' });
      await expect(
        resolverOver([alphaDb]).resolveRecorded([{ configName: 'shared_name', connectionId: null }], 'beta'),
      ).rejects.toMatchObject({
        code: FetCode.MissingDatasource,
      });
    });
  });
});
