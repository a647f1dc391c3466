import { createHash, createHmac, randomBytes } from 'node:crypto';
import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import type { ConnectorSession, RowBatch, TableInfo } from './connectors/shared/engine-connector.js';
import { deriveResultKeys } from './crypto/key-derivation.js';
import { createEngine } from './engine.js';
import { EngineOptionsError } from './errors/engine-errors.js';
import { FetCode } from './errors/fet-code.js';
import type { ProgressEvent } from './extract-request.js';
import { DataRequestError } from './request/data-request.error.js';
import { openResultWithKeys } from './result/result-opener.js';
import { sealedObjectBytes } from './result/result-stream-opener.js';
import { MemoryUpload } from './result/testing/memory-upload.js';
import { scriptedEngine } from './testing/scripted-engine.js';

const ACCOUNTS: TableInfo = {
  schema: 'public',
  name: 'accounts',
  key: 'accounts',
  columns: [
    { name: 'id', dataType: 'int4' },
    { name: 'email', dataType: 'text' },
  ],
  primaryKey: ['id'],
};
const rows = (...ids: number[]): RowBatch => ({ json: Buffer.from(ids.map((id) => `{"id":${id}}`).join(',')), rowCount: ids.length });
const DOCUMENT = '{"pg":{"accounts":[{"id":1},{"id":2},{"id":3}]}}';
const REQUEST = { datasources: { pg: 'postgres://u:p@db.example.com/main' }, dataRequest: { mappedFields: { pg: { accounts: ['id'] } } } };

/** A session discovering `accounts` and reading `batches`; `stall` makes it wait for its abort after them. */
function session(batches: RowBatch[], stall = false) {
  const state = { closed: 0 };
  const opened: ConnectorSession = {
    discover: async () => ({ tables: new Map([['accounts', ACCOUNTS]]) }),
    async *readRows(_request, signal) {
      for (const batch of batches) yield batch;
      if (stall) await new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error)));
    },
    close: async () => void (state.closed += 1),
  };
  return { opened, state };
}

describe('Engine.extract', () => {
  it('returns the document in memory without a sink, with its row counts, size and SHA-256', async () => {
    const { opened, state } = session([rows(1, 2), rows(3)]);
    const result = await scriptedEngine(async () => opened).extract(REQUEST);
    expect(result.bytes?.toString()).toBe(DOCUMENT);
    expect(result).toMatchObject({
      rowCount: 3,
      rowCounts: { pg: { accounts: 3 } },
      sizeBytes: DOCUMENT.length,
      storedBytes: DOCUMENT.length,
      sha256: createHash('sha256').update(DOCUMENT).digest('hex'),
    });
    expect(result.hmac).toBeUndefined();
    expect(state.closed).toBe(1);
  });

  it('seals with a master key as the service stores it: the HMAC is of the plaintext, the object opens with the derived keys', async () => {
    const master = randomBytes(32);
    const upload = new MemoryUpload();
    const result = await scriptedEngine(async () => session([rows(1, 2, 3)]).opened).extract(
      { ...REQUEST, output: { seal: { masterKey: master.toString('base64') } } },
      upload,
    );
    const keys = deriveResultKeys(master);
    expect(upload.completed).toBe(true);
    expect(openResultWithKeys(upload.body, keys).plaintext.toString()).toBe(DOCUMENT);
    expect(result.hmac).toBe(createHmac('sha256', keys.hmacKey).update(DOCUMENT).digest('hex'));
    // What the upload received: the sealed object, base64 of nonce ‖ ciphertext ‖ tag.
    expect(result.storedBytes).toBe(upload.body.length);
    expect(result.storedBytes).toBe(sealedObjectBytes(DOCUMENT.length));
    expect(result.bytes).toBeUndefined();
  });

  it('streams into a Writable and ends it', async () => {
    const chunks: Buffer[] = [];
    let ended = false;
    const sink = new Writable({
      write: (chunk: Buffer, _encoding, done) => (chunks.push(Buffer.from(chunk)), done()),
      final: (done) => ((ended = true), done()),
    });
    const result = await scriptedEngine(async () => session([rows(1, 2), rows(3)]).opened).extract(REQUEST, sink);
    expect(Buffer.concat(chunks).toString()).toBe(DOCUMENT);
    expect(ended).toBe(true);
    expect(result.storedBytes).toBe(DOCUMENT.length);
  });

  it('reports the plan, each table’s status, rows and bytes as it goes', async () => {
    const events: ProgressEvent[] = [];
    await scriptedEngine(async () => session([rows(1, 2), rows(3)]).opened).extract({
      ...REQUEST,
      onProgress: (event) => events.push(event),
    });
    expect(events.filter((event) => event.type !== 'bytes')).toEqual([
      { type: 'planned', tables: [{ datasource: 'pg', table: 'accounts', engine: 'POSTGRESQL' }] },
      { type: 'table', datasource: 'pg', table: 'accounts', status: 'reading', rows: 0 },
      { type: 'rows', datasource: 'pg', table: 'accounts', engine: 'POSTGRESQL', rows: 2, totalRows: 2 },
      { type: 'rows', datasource: 'pg', table: 'accounts', engine: 'POSTGRESQL', rows: 1, totalRows: 3 },
      { type: 'table', datasource: 'pg', table: 'accounts', status: 'done', rows: 3 },
    ]);
    expect(events.at(-1)).toMatchObject({ type: 'bytes', totalBytes: DOCUMENT.length });
  });

  it('refuses an invalid request with its FET code and every problem before connecting anywhere', async () => {
    const open = vi.fn();
    const error = await scriptedEngine(open)
      .extract({ ...REQUEST, dataRequest: { mappedFields: { pg: { accounts: [] } } } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DataRequestError);
    expect(error).toMatchObject({
      code: FetCode.InvalidDataRequest,
      fields: { 'dataRequest.mappedFields.pg.accounts': expect.any(String) },
    });
    expect(open).not.toHaveBeenCalled();
  });

  it('aborts the sink it was given when it refuses the request or a datasource before reading anything', async () => {
    const refusedRequest = new MemoryUpload();
    await expect(
      scriptedEngine(async () => session([]).opened).extract({ ...REQUEST, dataRequest: { mappedFields: {} } }, refusedRequest),
    ).rejects.toMatchObject({ code: FetCode.InvalidDataRequest });
    const refusedUrl = new MemoryUpload();
    await expect(
      scriptedEngine(async () => session([]).opened).extract({ ...REQUEST, datasources: { pg: 'postgres://' } }, refusedUrl),
    ).rejects.toMatchObject({ code: FetCode.BadRequest });
    expect([refusedRequest.aborted, refusedUrl.aborted]).toEqual([true, true]);
  });

  it('fails with FET-1020 for a datasource of the request it was not given', async () => {
    await expect(
      scriptedEngine(async () => session([]).opened).extract({ datasources: {}, dataRequest: REQUEST.dataRequest }),
    ).rejects.toMatchObject({ code: FetCode.MissingDatasource });
  });

  it('on an abort stops the read, closes the session, destroys the Writable and rejects with FET-1105', async () => {
    const { opened, state } = session([rows(1)], true);
    const controller = new AbortController();
    const sink = new PassThrough();
    sink.resume();
    const extracting = scriptedEngine(async () => opened).extract({ ...REQUEST, signal: controller.signal }, sink);
    setTimeout(() => controller.abort(new Error('stop')), 20);
    await expect(extracting).rejects.toMatchObject({ code: FetCode.ExtractionCancelled });
    expect(state.closed).toBe(1);
    expect(sink.destroyed).toBe(true);
  });

  it('fails with FET-1102 past the request’s timeoutMs, and aborts the upload', async () => {
    const upload = new MemoryUpload();
    const request = { ...REQUEST, dataRequest: { ...REQUEST.dataRequest, limits: { timeoutMs: 30 } } };
    await expect(scriptedEngine(async () => session([rows(1)], true).opened).extract(request, upload)).rejects.toMatchObject({
      code: FetCode.ExtractionTimeout,
      message: 'extraction exceeded its timeout of 30 ms; nothing was stored',
    });
    expect(upload).toMatchObject({ aborted: true, completed: false });
  });

  it('fails with FET-1101 once the document would pass maxResultBytes, keeping nothing', async () => {
    const upload = new MemoryUpload();
    const engine = scriptedEngine(async () => session([rows(1, 2), rows(3)]).opened, { limits: { maxResultBytes: 20 } });
    await expect(engine.extract(REQUEST, upload)).rejects.toMatchObject({ code: FetCode.ResultTooLarge });
    expect(upload.completed).toBe(false);
  });
});

describe('createEngine', () => {
  it('takes limits only below their defaults, naming the one it refuses', () => {
    expect(createEngine({ limits: { maxResultBytes: 1_000 } }).limits.maxResultBytes).toBe(1_000);
    const over = () => createEngine({ limits: { maxDatasources: 11 } });
    expect(over).toThrow(EngineOptionsError);
    expect(over).toThrow('createEngine: limits.maxDatasources must be an integer from 1 to 10');
    expect(() => createEngine({ limits: { maxRows: 5 } as never })).toThrow(/limits\.maxRows is not a limit/);
  });

  it('refuses a master key that is not one, without echoing it', async () => {
    const error = await scriptedEngine(async () => session([]).opened)
      .extract({ ...REQUEST, output: { seal: { masterKey: 'not base64!' } } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EngineOptionsError);
    expect((error as Error).message).toBe('output.seal.masterKey: must be standard base64');
  });

  it('allows private hosts by default and refuses them when asked, metadata addresses always', async () => {
    const open = vi.fn(async () => session([]).opened);
    const local = { datasources: { pg: 'postgres://u@127.0.0.1/main' }, dataRequest: REQUEST.dataRequest };
    const metadata = { datasources: { pg: 'postgres://u@169.254.169.254/main' }, dataRequest: REQUEST.dataRequest };
    const connectors = [{ type: 'POSTGRESQL' as const, defaultSchema: () => 'public', open }];
    await expect(createEngine({ connectors }).extract(local)).resolves.toMatchObject({ rowCount: 0 });
    await expect(createEngine({ connectors, egress: { allowPrivateHosts: false } }).extract(local)).rejects.toMatchObject({
      code: FetCode.ForbiddenHost,
    });
    await expect(createEngine({ connectors }).extract(metadata)).rejects.toMatchObject({ code: FetCode.ForbiddenHost });
    expect(open).toHaveBeenCalledTimes(1);
  });
});

describe('Engine.test and Engine.discover', () => {
  /** A connector whose open waits for its abort: a server that never answers the login. */
  const silent = async (_datasource: unknown, signal?: AbortSignal): Promise<ConnectorSession> =>
    new Promise((_, reject) => signal?.addEventListener('abort', () => reject(signal.reason as Error)));

  it('test: FET-1041 with reason timeout past its deadline, and the caller’s reason on an abort', async () => {
    const engine = scriptedEngine(silent);
    await expect(engine.test(REQUEST.datasources.pg, { timeoutMs: 30 })).rejects.toMatchObject({
      code: FetCode.ConnectionTestFailed,
      extra: { reason: 'timeout' },
    });
    const controller = new AbortController();
    const stop = new Error('interrupted');
    setTimeout(() => controller.abort(stop), 20);
    await expect(engine.test(REQUEST.datasources.pg, { signal: controller.signal })).rejects.toBe(stop);
  });

  it('discover: the tables, sorted, with their columns; the caller’s reason on an abort', async () => {
    const engine = scriptedEngine(async () => session([]).opened);
    expect(await engine.discover(REQUEST.datasources.pg)).toEqual({
      tables: [
        {
          key: 'accounts',
          schema: 'public',
          name: 'accounts',
          columns: [
            { name: 'id', type: 'int4' },
            { name: 'email', type: 'text' },
          ],
          primaryKey: ['id'],
        },
      ],
    });
    const controller = new AbortController();
    const stop = new Error('interrupted');
    setTimeout(() => controller.abort(stop), 20);
    await expect(scriptedEngine(silent).discover(REQUEST.datasources.pg, null, { signal: controller.signal })).rejects.toBe(stop);
  });
});
