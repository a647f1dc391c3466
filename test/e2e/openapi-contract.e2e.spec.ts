import { copyFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedFetcher, TEST_MASTER_KEY, type EmbeddedFetcher } from '../helpers/fetcher-app.js';
import { freePort, startFetcherProcess, type FetcherProcess } from '../helpers/fetcher-process.js';

const CONSUMER = fileURLToPath(new URL('../fixtures/openapi-consumer/consumer.ts', import.meta.url));

/** The consumer compiled with --strict beside the types openapi-typescript generates from `document`: its diagnostics. */
async function compileConsumer(document: object): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'openapi-consumer-'));
  try {
    writeFileSync(join(dir, 'schema.d.ts'), astToString(await openapiTS(structuredClone(document) as Parameters<typeof openapiTS>[0])));
    copyFileSync(CONSUMER, join(dir, 'consumer.ts'));
    const program = ts.createProgram([join(dir, 'consumer.ts')], {
      strict: true,
      noEmit: true,
      noImplicitAny: true,
      noUncheckedIndexedAccess: true,
      exactOptionalPropertyTypes: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      types: [],
      lib: ['lib.es2023.d.ts'],
    });
    return ts.getPreEmitDiagnostics(program).map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The API document as a contract clients are generated from: exact enough that a strictly
 * compiled consumer of openapi-typescript's types needs no cast, and the same bytes from every
 * process and build, so a committed copy or generated client only changes with the API.
 */
describe('the OpenAPI document as a contract', () => {
  let fetcher: EmbeddedFetcher;
  let document: Record<string, any>;

  beforeAll(async () => {
    fetcher = await startEmbeddedFetcher({});
    const response = await fetcher.http.get('/swagger-json');
    expect(response.status).toBe(200);
    document = response.body as Record<string, any>;
  });
  afterAll(async () => {
    await fetcher?.close();
  });

  it('types a strict consumer that submits a job with mappedFields, filters and metadata, reads rowCounts and progress.tables and lists jobs', async () => {
    expect(await compileConsumer(document)).toEqual([]);
  });

  it('fails that consumer when a map is only `type: object` again (openapi-typescript then writes Record<string, never>)', async () => {
    const loose = structuredClone(document);
    loose.components.schemas.DataRequestDto.properties.mappedFields = { type: 'object' };
    const problems = await compileConsumer(loose);
    expect(problems.join('\n')).toMatch(/not assignable to type 'never'/);
  });

  it('pre-fills no query parameter of GET /v1/fetcher that would filter the walkthrough’s job out', () => {
    const parameters = document.paths['/v1/fetcher'].get.parameters as Array<{
      name: string;
      example?: unknown;
      schema?: { example?: unknown };
    }>;
    const prefilled = Object.fromEntries(
      parameters.flatMap((parameter) => {
        const example = parameter.example ?? parameter.schema?.example;
        return example === undefined ? [] : [[parameter.name, example]];
      }),
    );
    // The walkthrough's job belongs to product reporter; nothing else narrows the list.
    expect(prefilled).toEqual({ source: 'reporter' });
  });

  describe('byte-stable', () => {
    const processes: FetcherProcess[] = [];
    const dirs: string[] = [];
    afterAll(async () => {
      await Promise.all(processes.map((process) => process.stop()));
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    });

    it('two processes on different data directories and ports, started apart, serve the same bytes as the in-process app', async () => {
      const texts: string[] = [];
      for (let i = 0; i < 2; i += 1) {
        const dataDir = mkdtempSync(join(tmpdir(), 'fetcher-openapi-'));
        dirs.push(dataDir);
        const port = await freePort();
        const app = await startFetcherProcess({ DATA_DIR: dataDir, APP_ENC_KEY: TEST_MASTER_KEY, PORT: String(port) }, port);
        processes.push(app);
        const response = await fetch(`${app.url}/swagger-json`);
        expect(response.status).toBe(200);
        texts.push(await response.text());
        if (i === 0) await new Promise((resolve) => setTimeout(resolve, 1100)); // a second apart: no clock in the document
      }
      expect(texts[1]).toBe(texts[0]);
      // The compiled build and the sources run by the suite describe the same API.
      expect(JSON.parse(texts[0])).toEqual(document);
    });
  });
});
