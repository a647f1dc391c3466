import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { modulesLoadedAfter, modulesLoadedBy } from '../helpers/loaded-modules.js';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const built = (path: string) => JSON.stringify(resolve(root, 'dist', path));

const fromPackage = (loaded: string[], name: string) => loaded.filter((path) => path.includes(`/node_modules/${name}/`));

const DRIVERS = ['mssql', 'tedious', 'mongodb', 'mysql2', 'oracledb'];

describe('drivers load on first use', () => {
  it('the application graph loads no SQL Server, MongoDB, MySQL or Oracle driver until a connection needs it', () => {
    const loaded = modulesLoadedBy('dist/app.module.js');
    // The graph itself is there: PostgreSQL (the job store's driver too) and the connectors' code.
    expect(loaded.some((path) => path.includes('/node_modules/pg/'))).toBe(true);
    for (const driver of DRIVERS) {
      expect(fromPackage(loaded, driver), driver).toEqual([]);
    }
  });

  it('an embedded process in role all (SQLite, local results, in-process queue, no broker) never loads the S3, Redis or RabbitMQ clients, nor @nestjs/swagger or the OpenTelemetry SDK', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'fetcher-lazy-clients-'));
    try {
      // Booted and shut down, so the factories and the modules' init and close hooks have all run.
      const loaded = modulesLoadedAfter(`
        const { loadAppConfig } = await import(${built('config/load-config.js')});
        const { createFetcherApp } = await import(${built('bootstrap/create-app.js')});
        const app = await createFetcherApp(loadAppConfig({ DATA_DIR: ${JSON.stringify(dataDir)}, LOG_LEVEL: 'error' }));
        await app.init();
        await app.close();`);
      // It did boot, on its embedded store, and the ES modules it loaded are listed too.
      expect(loaded.filter((path) => path.endsWith('/dist/persistence/node-sqlite-driver.js'))).toHaveLength(1);
      expect(fromPackage(loaded, '@nestjs/core').length).toBeGreaterThan(0);
      // No OTEL_EXPORTER_OTLP_ENDPOINT: tracing is the API's no-op, the SDK and exporter stay unloaded.
      const tracingSdk = ['@opentelemetry/sdk-trace', '@opentelemetry/context-async-hooks', '@opentelemetry/exporter-trace-otlp-http'];
      const clients = ['minio', 'bullmq', 'ioredis', 'amqplib', 'amqp-connection-manager', '@nestjs/swagger', ...tracingSdk];
      for (const client of [...clients, ...DRIVERS]) {
        expect(fromPackage(loaded, client), client).toEqual([]);
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
