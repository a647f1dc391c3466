import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { modulesLoadedAfter } from '../helpers/loaded-modules.js';
import { useTempDatabase } from '../helpers/pg-database.js';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const ENGINE = JSON.stringify(resolve(root, 'dist/engine/index.js'));
const SERVICE_PACKAGES = [
  '@nestjs/',
  'typeorm',
  'bullmq',
  'ioredis',
  'minio',
  'amqplib',
  'class-validator',
  'nestjs-pino',
  '@opentelemetry/',
];

const fromPackages = (loaded: readonly string[], names: readonly string[]) =>
  loaded.filter((path) => names.some((name) => path.includes(`/node_modules/${name}`)));
/** Built files of the service (dist/ outside dist/engine/). */
const serviceFiles = (loaded: readonly string[]) =>
  loaded.filter((path) => path.startsWith(resolve(root, 'dist')) && !path.startsWith(resolve(root, 'dist/engine')));

describe('the engine runs without the service', () => {
  const pg = useTempDatabase('engine_boundary');

  beforeAll(async () => {
    await pg().query(
      `CREATE TABLE accounts (id int PRIMARY KEY, email text); INSERT INTO accounts VALUES (1, 'a@example.com'), (2, 'b@example.com');`,
    );
  });

  afterAll(async () => {});

  it('importing fetcher/engine in a fresh process loads no Nest, TypeORM, BullMQ or ioredis module, nor any file of the service', () => {
    const loaded = modulesLoadedAfter(`await import(${ENGINE});`);
    expect(loaded.some((path) => path.endsWith('/dist/engine/index.js'))).toBe(true);
    expect(fromPackages(loaded, SERVICE_PACKAGES)).toEqual([]);
    expect(serviceFiles(loaded)).toEqual([]);
  });

  it('nor does a whole extraction: only the engine and the PostgreSQL driver', () => {
    const loaded = modulesLoadedAfter(`
      const { createEngine } = await import(${ENGINE});
      const result = await createEngine().extract({
        datasources: { pg: ${JSON.stringify(pg().url)} },
        dataRequest: { mappedFields: { pg: { accounts: ['*'] } } },
      });
      if (result.bytes.toString() !== '{"pg":{"accounts":[{"id":1,"email":"a@example.com"},{"id":2,"email":"b@example.com"}]}}') {
        throw new Error('unexpected result ' + result.bytes.toString());
      }`);
    expect(loaded.some((path) => path.includes('/node_modules/pg/'))).toBe(true);
    expect(fromPackages(loaded, SERVICE_PACKAGES)).toEqual([]);
    expect(serviceFiles(loaded)).toEqual([]);
  });
});
