import { randomBytes } from 'node:crypto';
import { QueryFailedError } from 'typeorm';
import { beforeEach, describe, expect, it } from 'vitest';
import { ANONYMOUS_OPERATOR, type Principal } from '../auth/principal.js';
import { ManualClock } from '../common/clock/testing/manual-clock.js';
import { SequentialIdGenerator } from '../common/clock/testing/sequential-id-generator.js';
import type { AppConfig } from '../config/app-config.js';
import { parseInternalDatasources } from '../config/internal-datasources.config.js';
import type { ConnectionRecord } from '../datasource/connection.entity.js';
import type { ConnectionRepository } from '../datasource/connection.repository.js';
import { CredentialCipher } from '../datasource/credential-cipher.service.js';
import { DatasourceResolver } from '../datasource/datasource-resolver.service.js';
import { DatasourceType } from '../engine/connectors/datasource-type.js';
import { InternalDatasources } from '../datasource/internal/internal-datasources.service.js';
import { EgressGuard } from '../engine/egress/egress-guard.js';
import type { ActiveJobs } from './active-jobs.port.js';
import { ConnectionQueryService } from './connection-query.service.js';
import { ConnectionRecordFactory } from './connection-record.factory.js';
import { ConnectionRules } from './connection-rules.js';
import type { Engine } from '../engine/engine.js';
import { ConnectionService } from './connection.service.js';
import type { CreateConnectionDto } from './dto/create-connection.dto.js';

/** The rows a repository would hold, with its unique index on live config names within a product. */
class MemoryConnections {
  readonly rows = new Map<string, ConnectionRecord>();

  async insert(record: ConnectionRecord): Promise<void> {
    const taken = (row: ConnectionRecord) =>
      row.deletedAt === null && row.configName === record.configName && row.productName === record.productName;
    if ([...this.rows.values()].some(taken)) {
      throw new QueryFailedError('INSERT', [], Object.assign(new Error('duplicate key'), { code: '23505' }));
    }
    this.rows.set(record.id, { ...record });
  }

  async findById(id: string): Promise<ConnectionRecord | null> {
    const row = this.rows.get(id);
    return row && row.deletedAt === null ? { ...row } : null;
  }

  async update(id: string, changes: Partial<ConnectionRecord>): Promise<boolean> {
    const row = this.rows.get(id);
    if (!row || row.deletedAt !== null) return false;
    this.rows.set(id, { ...row, ...changes });
    return true;
  }

  async softDelete(id: string, at: Date): Promise<boolean> {
    return this.update(id, { deletedAt: at });
  }

  async assignProduct(id: string, productName: string, at: Date): Promise<boolean> {
    const row = this.rows.get(id);
    if (!row || row.deletedAt !== null || row.productName !== null) return false;
    this.rows.set(id, { ...row, productName, updatedAt: at });
    return true;
  }
}

const PRODUCT: Principal = { id: 'apikey:1', method: 'apikey', operator: false, products: ['ledger'] };
const OTHER_PRODUCT: Principal = { id: 'apikey:2', method: 'apikey', operator: false, products: ['billing'] };

const body = (overrides: Partial<CreateConnectionDto> = {}): CreateConnectionDto => ({
  configName: ' pg_main ',
  type: DatasourceType.PostgreSQL,
  host: ' db.example.com ',
  port: 5432,
  databaseName: ' ledger ',
  userName: ' reporter ',
  password: 's3cret',
  ...overrides,
});

describe('ConnectionService', () => {
  let clock: ManualClock;
  let connections: MemoryConnections;
  let cipher: CredentialCipher;
  let busy: Set<string>;
  let service: ConnectionService;
  let forgotten: string[];

  beforeEach(() => {
    clock = new ManualClock('2026-03-01T10:00:00.000Z');
    connections = new MemoryConnections();
    busy = new Set();
    const { datasources } = parseInternalDatasources({
      DATASOURCE_WAREHOUSE_CONFIG_NAME: 'warehouse',
      DATASOURCE_WAREHOUSE_TYPE: 'POSTGRESQL',
      DATASOURCE_WAREHOUSE_HOST: 'warehouse.internal',
      DATASOURCE_WAREHOUSE_DATABASE: 'dwh',
    });
    const config = {
      encryption: { masterKey: randomBytes(32), keyVersion: '1', generated: false, keyring: new Map() },
      internalDatasources: datasources,
    } as unknown as AppConfig;
    cipher = new CredentialCipher(config);
    const internal = new InternalDatasources(config);
    const repository = connections as unknown as ConnectionRepository;
    const guard = new EgressGuard({ allowPrivateHosts: false }, async (host) => (host === 'db.example.com' ? ['93.184.216.34'] : []));
    forgotten = [];
    const activeJobs: ActiveJobs = { usesConnection: async ({ configName }) => busy.has(configName) };
    service = new ConnectionService(
      repository,
      new ConnectionQueryService(repository, internal, new DatasourceResolver(repository, internal, cipher)),
      new ConnectionRules(internal, guard),
      new ConnectionRecordFactory(cipher, clock, new SequentialIdGenerator()),
      activeJobs,
      clock,
      { forgetSessions: async (id: string) => void forgotten.push(id) } as unknown as Engine,
    );
  });

  const stored = (id: string) => connections.rows.get(id) as ConnectionRecord;

  describe('create', () => {
    it('stores the record trimmed, with a time-ordered id, the clock’s time and the password sealed', async () => {
      const created = await service.create('ledger', body({ ssl: { mode: 'require', ca: 'CA PEM' }, metadata: { team: 'finance' } }));

      expect(created).toMatchObject({
        id: '00000001-0000-7000-8000-000000000001',
        productName: 'ledger',
        configName: 'pg_main',
        host: 'db.example.com',
        databaseName: 'ledger',
        userName: 'reporter',
        hasPassword: true,
        ssl: { mode: 'require' },
        metadata: { team: 'finance' },
        createdAt: '2026-03-01T10:00:00.000Z',
        updatedAt: '2026-03-01T10:00:00.000Z',
      });
      const row = stored(created.id);
      expect(row.createdAt).toEqual(clock.now());
      expect(row.passwordEncrypted).not.toContain('s3cret');
      expect(cipher.decrypt(row.passwordEncrypted, row.encryptionKeyVersion)).toBe('s3cret');
      expect(cipher.decrypt(row.sslCaEncrypted as string, row.encryptionKeyVersion)).toBe('CA PEM');
      expect(row.sslCertEncrypted).toBeNull();
    });

    it('refuses an SSL mode the engine does not take with FET-0413, listing the modes it takes', async () => {
      const error = await service.create('ledger', body({ type: DatasourceType.MySQL, ssl: { mode: 'require' } })).catch((e: unknown) => e);
      expect(error).toMatchObject({
        code: 'FET-0413',
        message:
          "Invalid SSL mode. The provided SSL mode 'require' is not supported for MYSQL; use one of: false, true, skip-verify, preferred.",
        fields: { 'ssl.mode': 'must be one of false, true, skip-verify, preferred' },
      });
      expect(connections.rows.size).toBe(0);
    });

    it('takes SSL modes as written: the case counts', async () => {
      await expect(service.create('ledger', body({ ssl: { mode: 'REQUIRE' } }))).rejects.toMatchObject({ code: 'FET-0413' });
    });

    it('asks an Oracle connection for metadata.serviceName (FET-0402)', async () => {
      await expect(service.create('ledger', body({ type: DatasourceType.Oracle, port: 1521 }))).rejects.toMatchObject({
        code: 'FET-0402',
        message: 'Oracle connections need metadata.serviceName',
        fields: { 'metadata.serviceName': 'metadata.serviceName is a required field for ORACLE' },
      });
      await expect(
        service.create('ledger', body({ type: DatasourceType.Oracle, port: 1521, metadata: { serviceName: 'FREEPDB1' } })),
      ).resolves.toMatchObject({ type: 'ORACLE' });
    });

    it('keeps the name of an internal datasource to it (FET-1002)', async () => {
      await expect(service.create('ledger', body({ configName: 'warehouse' }))).rejects.toMatchObject({
        code: 'FET-1002',
        fields: { configName: "'warehouse' is reserved by an internal datasource" },
      });
    });

    it('refuses a host the SSRF guard forbids (FET-0414) before storing anything', async () => {
      await expect(service.create('ledger', body({ host: '169.254.169.254' }))).rejects.toMatchObject({ code: 'FET-0414' });
      expect(connections.rows.size).toBe(0);
    });

    it('answers a name already in use in the same product with FET-1002', async () => {
      await service.create('ledger', body());
      await expect(service.create('ledger', body())).rejects.toMatchObject({
        code: 'FET-1002',
        fields: { configName: "product 'ledger' already has a connection named 'pg_main'" },
      });
    });

    it('lets another product take a name one product uses: names live inside a product', async () => {
      await service.create('ledger', body());
      await expect(service.create('billing', body())).resolves.toMatchObject({ configName: 'pg_main', productName: 'billing' });
    });
  });

  describe('update', () => {
    it('merges the change and stamps updatedAt with the clock', async () => {
      const { id } = await service.create('ledger', body());
      clock.advance(60_000);
      const updated = await service.update(id, { userName: ' auditor ' }, PRODUCT);
      expect(updated).toMatchObject({ userName: 'auditor', hasPassword: true, updatedAt: '2026-03-01T10:01:00.000Z' });
      expect(stored(id).createdAt.toISOString()).toBe('2026-03-01T10:00:00.000Z');
    });

    it('closes the pooled source sessions of the connection it changed, and of no other, only once the change is stored', async () => {
      const { id } = await service.create('ledger', body());
      busy.add('pg_main');
      await expect(service.update(id, { port: 6432 }, PRODUCT)).rejects.toMatchObject({ code: 'FET-1021' });
      expect(forgotten).toEqual([]);
      busy.clear();
      await service.update(id, { port: 6432 }, PRODUCT);
      expect(forgotten).toEqual([id]);
    });

    it('moves updatedAt forward even when the clock has not moved, so a cached schema is never reused', async () => {
      const { id } = await service.create('ledger', body());
      await service.update(id, { port: 6432, password: 'new' }, PRODUCT);
      expect(stored(id).updatedAt.toISOString()).toBe('2026-03-01T10:00:00.001Z');
    });

    it('forgets the stored password when the endpoint changes without a new one', async () => {
      const { id } = await service.create('ledger', body());
      expect(await service.update(id, { port: 6432 }, PRODUCT)).toMatchObject({ port: 6432, hasPassword: false });
      expect(stored(id).passwordEncrypted).toBe('');
    });

    it('answers an empty body with FET-0001', async () => {
      const { id } = await service.create('ledger', body());
      await expect(service.update(id, {}, PRODUCT)).rejects.toMatchObject({ code: 'FET-0001' });
    });

    it('refuses while a job uses the connection (FET-1021)', async () => {
      const { id } = await service.create('ledger', body());
      busy.add('pg_main');
      await expect(service.update(id, { port: 6432 }, PRODUCT)).rejects.toMatchObject({
        code: 'FET-1021',
        message: 'cannot update connection with active jobs',
      });
    });

    it('checks the merged record against its engine: a new type must suit the stored SSL mode', async () => {
      const { id } = await service.create('ledger', body({ ssl: { mode: 'verify-full' } }));
      await expect(service.update(id, { type: DatasourceType.MongoDB }, PRODUCT)).rejects.toMatchObject({ code: 'FET-0413' });
      expect(stored(id).type).toBe('POSTGRESQL');
    });

    it('hides another product’s connection (404) and refuses internal datasources (FET-1023)', async () => {
      const { id } = await service.create('ledger', body());
      await expect(service.update(id, { port: 1 }, OTHER_PRODUCT)).rejects.toMatchObject({ code: 'FET-1001' });
      const internalId = parseInternalDatasources({
        DATASOURCE_WAREHOUSE_CONFIG_NAME: 'warehouse',
        DATASOURCE_WAREHOUSE_TYPE: 'POSTGRESQL',
        DATASOURCE_WAREHOUSE_HOST: 'warehouse.internal',
        DATASOURCE_WAREHOUSE_DATABASE: 'dwh',
      }).datasources[0].id;
      await expect(service.update(internalId, { port: 1 }, ANONYMOUS_OPERATOR)).rejects.toMatchObject({ code: 'FET-1023' });
    });
  });

  describe('remove and assign', () => {
    it('soft-deletes at the clock’s time, and refuses while a job uses the connection', async () => {
      const { id } = await service.create('ledger', body());
      busy.add('pg_main');
      await expect(service.remove(id, PRODUCT)).rejects.toMatchObject({ code: 'FET-1021' });
      busy.clear();
      clock.advance(5_000);
      expect(forgotten).toEqual([]);
      await service.remove(id, PRODUCT);
      expect(stored(id).deletedAt?.toISOString()).toBe('2026-03-01T10:00:05.000Z');
      expect(forgotten).toEqual([id]);
      await expect(service.remove(id, PRODUCT)).rejects.toMatchObject({ code: 'FET-1001' });
    });

    it('assigns an unassigned connection once, stamped with the clock', async () => {
      const unassigned: ConnectionRecord = { ...stored((await service.create('ledger', body())).id), id: 'u1', configName: 'orphan' };
      connections.rows.set('u1', { ...unassigned, productName: null });
      clock.advance(1_000);
      expect(await service.assign('u1', 'billing')).toMatchObject({ productName: 'billing', updatedAt: '2026-03-01T10:00:01.000Z' });
      await expect(service.assign('u1', 'ledger')).rejects.toMatchObject({ code: 'FET-1015' });
    });
  });
});
