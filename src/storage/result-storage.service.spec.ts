import { createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Test, type TestingModule } from '@nestjs/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FetCode } from '../engine/errors/fet-code.js';
import { AppConfigModule } from '../config/config.module.js';
import { loadAppConfig } from '../config/load-config.js';
import { LocalObjectStore } from './local/local-object-store.js';
import { OBJECT_STORE } from './object-store.port.js';
import { ResultStorageService } from './result-storage.service.js';
import { StorageModule } from './storage.module.js';

describe('ResultStorageService (StorageModule, local store)', () => {
  let dir: string;
  let moduleRef: TestingModule;
  let service: ResultStorageService;
  const masterKey = randomBytes(32);

  async function boot(env: Record<string, string> = {}): Promise<void> {
    const config = loadAppConfig({ DATA_DIR: dir, APP_ENC_KEY: masterKey.toString('base64'), ...env });
    moduleRef = await Test.createTestingModule({ imports: [AppConfigModule.forRoot(config), StorageModule] }).compile();
    await moduleRef.init();
    service = moduleRef.get(ResultStorageService);
  }

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fetcher-storage-service-'));
  });
  afterEach(async () => {
    await moduleRef?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('stores a result under external-data/<jobId>.json and opens it again', async () => {
    await boot();
    expect(moduleRef.get(OBJECT_STORE)).toBeInstanceOf(LocalObjectStore);
    const sink = await service.openSink('0b9d6a3e-4c1f-4f7e-9a51-6c2d3e4f5a6b', 1024 * 1024);
    await sink.write('{"crm":');
    await sink.write('{"customers":[{"id":1,"name":"Ana"}]}}');
    const stored = await sink.finish();

    const plaintext = '{"crm":{"customers":[{"id":1,"name":"Ana"}]}}';
    const hmacKey = Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), 'fetcher-external-hmac-v1', 32));
    expect(stored).toMatchObject({
      path: 'external-data/0b9d6a3e-4c1f-4f7e-9a51-6c2d3e4f5a6b.json',
      sizeBytes: Buffer.byteLength(plaintext),
      hmac: createHmac('sha256', hmacKey).update(plaintext).digest('hex'),
    });
    expect(existsSync(join(dir, 'results', stored.path))).toBe(true);
    expect((await service.readStored(stored.path)).toString('latin1')).toMatch(/^[A-Za-z0-9+/]+=*$/);
    const opened = await service.open(stored.path);
    expect(opened.plaintext.toString()).toBe(plaintext);
    expect(opened.hmac).toBe(stored.hmac);
    expect(opened.sha256).toBe(stored.sha256);
  });

  it('caps a job limit at ENGINE_MAX_RESULT_BYTES and stores nothing over it', async () => {
    await boot({ ENGINE_MAX_RESULT_BYTES: '50' });
    const sink = await service.openSink('job-1', 1_000_000);
    await sink.write('x'.repeat(50));
    await expect(sink.write('y')).rejects.toMatchObject({ code: FetCode.ResultTooLarge });
    await sink.abort();
    await expect(service.readStored('external-data/job-1.json')).rejects.toMatchObject({ code: FetCode.NotFound });
    // The upload begins with its first write to the store: none at all, or none left behind.
    expect(await readdir(join(dir, 'results', '.uploads')).catch(() => [])).toEqual([]);
  });

  it('refuses a job id that is not a plain identifier', async () => {
    await boot();
    await expect(service.openSink('../../etc/passwd', 10)).rejects.toMatchObject({ code: FetCode.StorageFailed });
  });
});
