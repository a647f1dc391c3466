import { gunzipSync, zstdDecompressSync } from 'node:zlib';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEngine } from '../../src/engine/engine.js';
import type { ExtractResult } from '../../src/engine/extract-request.js';
import type { PartName, PartSink, PartTarget } from '../../src/engine/formats/result-parts.js';
import { deriveResultKeys } from '../../src/engine/crypto/key-derivation.js';
import { openResultWithKeys } from '../../src/engine/result/result-opener.js';
import type { ResultUpload } from '../../src/engine/result/result-upload.js';
import { MARIADB_FIDELITY_SQL, PG_FIDELITY_SQL } from '../helpers/fidelity-tables.js';
import { createTempMariaDatabase } from '../helpers/mariadb-database.js';
import { createTempDatabase } from '../helpers/pg-database.js';

interface Source {
  readonly url: string;
  drop(): Promise<void>;
}

const EXTRA_TABLES = 'CREATE TABLE empty_t (id int PRIMARY KEY, note text); CREATE TABLE second_t (id int PRIMARY KEY, note text);';
const SECOND_ROWS = "INSERT INTO second_t VALUES (1, 'one'), (2, NULL), (3, '')";

const SOURCES: Record<string, () => Promise<Source>> = {
  postgres: async () => {
    const db = await createTempDatabase('formats');
    await db.query(`${PG_FIDELITY_SQL}\n${EXTRA_TABLES} ${SECOND_ROWS};`);
    return { url: db.url, drop: () => db.drop() };
  },
  mariadb: async () => {
    const db = await createTempMariaDatabase('formats');
    await db.query(`${MARIADB_FIDELITY_SQL}\n${EXTRA_TABLES} ${SECOND_ROWS};`);
    return { url: `mysql://${db.user}@${db.host}:${db.port}/${db.name}`, drop: () => db.drop() };
  },
};

const MAPPED = { src: { fidelity: ['*'], empty_t: ['*'], second_t: ['*'] } };
const TABLES = ['empty_t', 'fidelity', 'second_t'];

/** A part sink that keeps every object and records what happened to it. */
class RecordingSink implements PartSink {
  readonly events: string[] = [];
  readonly objects = new Map<string, Buffer>();

  openPart(part: PartName): PartTarget {
    const path = `${part.datasource}/${part.fileName}`;
    return { path, upload: this.upload(path) };
  }

  openManifest(): ResultUpload {
    return this.upload('manifest');
  }

  private upload(path: string): ResultUpload {
    const chunks: Buffer[] = [];
    this.events.push(`open ${path}`);
    return {
      write: async (chunk) => void chunks.push(Buffer.from(chunk)),
      complete: async () => {
        this.objects.set(path, Buffer.concat(chunks));
        this.events.push(`complete ${path}`);
      },
      abort: async () => void this.events.push(`abort ${path}`),
    };
  }
}

/** Each value of a row as the text its JSON holds: a string's text, anything else its exact JSON (from the row's own text). */
function jsonTexts(rowText: string, row: Record<string, unknown>): (string | null)[] {
  return Object.entries(row).map(([key, value]) => {
    if (value === null) return null;
    if (typeof value === 'string') return value;
    const at = rowText.indexOf(`${JSON.stringify(key)}:`) + JSON.stringify(key).length + 1;
    const text = JSON.stringify(value);
    // Exact digits: the JSON text after the key, as long as the value's own JSON (numbers past 2^53 keep their text).
    return typeof value === 'number' || typeof value === 'object' ? rowText.slice(at, at + rawLength(rowText, at)) : text;
  });
}

/** Length of the JSON value starting at `at` in `text`: up to the comma or brace that ends it at depth 0. */
function rawLength(text: string, at: number): number {
  let depth = 0;
  let inString = false;
  for (let i = at; i < text.length; i++) {
    const char = text[i];
    if (inString) {
      if (char === '\\') i++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '{' || char === '[') depth++;
    else if (char === '}' || char === ']') {
      if (depth === 0) return i - at;
      depth--;
    } else if (char === ',' && depth === 0) return i - at;
  }
  return text.length - at;
}

describe.each(Object.keys(SOURCES))('result formats from %s', (engineName) => {
  const engine = createEngine();
  let source: Source;
  let json: ExtractResult;

  const extract = (output?: object, sink?: PartSink, limits?: object) =>
    engine.extract(
      { datasources: { src: source.url }, dataRequest: { mappedFields: MAPPED, ...(limits ? { limits } : {}) }, output },
      sink,
    );

  beforeAll(async () => {
    source = await SOURCES[engineName]();
    json = await extract();
  });
  afterAll(() => source?.drop());

  it('json, asked for by name or with compression none, is byte for byte the document without output', async () => {
    for (const output of [{ format: 'json' }, { format: 'json', compression: 'none' }]) {
      const same = await extract(output);
      expect((same.bytes as Buffer).equals(json.bytes as Buffer)).toBe(true);
      expect(same.sha256).toBe(json.sha256);
    }
    expect(json).toMatchObject({ format: 'json', compression: 'none' });
  });

  it('ndjson: every line, parsed alone, is one row of the JSON document, in its order, each line ending with a newline', async () => {
    const ndjson = await extract({ format: 'ndjson' });
    const text = (ndjson.bytes as Buffer).toString('utf8');
    expect(text.endsWith('\n')).toBe(true);
    const lines = text
      .slice(0, -1)
      .split('\n')
      .map((line) => JSON.parse(line) as unknown);
    const document = JSON.parse((json.bytes as Buffer).toString('utf8')) as Record<string, Record<string, unknown[]>>;
    const expected = Object.entries(document).flatMap(([datasource, tables]) =>
      Object.entries(tables).flatMap(([table, rows]) => rows.map((row) => ({ datasource, table, row }))),
    );
    expect(lines).toEqual(expected);
    expect(ndjson.rowCounts).toEqual(json.rowCounts);
  });

  it('csv: one part per table, whose fields a standard parser reads back as the JSON values as text', async () => {
    const sink = new RecordingSink();
    const csv = await extract({ format: 'csv' }, sink);
    expect(csv.parts?.map((part) => [part.table, part.path, part.rowCount])).toEqual(
      TABLES.map((table) => [table, `src/${table}.csv`, json.rowCounts.src[table]]),
    );
    const ndjson = (await extract({ format: 'ndjson' })).bytes?.toString('utf8').trim().split('\n') as string[];
    for (const table of TABLES) {
      const records = parse(sink.objects.get(`src/${table}.csv`) as Buffer, {
        cast: (value, context) => (context.quoting || value !== '' ? value : null),
      }) as (string | null)[][];
      const lines = ndjson.filter((line) => line.startsWith(`{"datasource":"src","table":${JSON.stringify(table)},`));
      const rows = lines.map((line) => {
        const rowText = line.slice(line.indexOf('"row":') + 6, -1);
        return jsonTexts(rowText, (JSON.parse(line) as { row: Record<string, unknown> }).row);
      });
      const header = records[0];
      const document = JSON.parse((json.bytes as Buffer).toString('utf8')) as Record<string, Record<string, Record<string, unknown>[]>>;
      const [first] = document.src[table];
      if (first) expect(header).toEqual(Object.keys(first));
      else expect(header).toEqual(['id', 'note']);
      expect(records.slice(1)).toEqual(rows);
    }
    expect(sink.events.at(-1)).toBe('complete manifest');
    const manifest = JSON.parse((sink.objects.get('manifest') as Buffer).toString('utf8')) as { parts: unknown[] };
    expect(manifest).toEqual({ version: 1, format: 'csv', compression: 'none', parts: csv.parts });
  });

  it.each([
    ['gzip', '.gz', gunzipSync],
    ['zstd', '.zst', zstdDecompressSync],
  ] as const)(
    'compresses with %s before sealing: each sealed part opens to a compressed file of the uncompressed part',
    async (compression, extension, decompress) => {
      const keys = deriveResultKeys(Buffer.alloc(32, 7));
      const plain = new RecordingSink();
      await extract({ format: 'csv' }, plain);
      const sealed = new RecordingSink();
      const compressed = await engine.extract(
        {
          datasources: { src: source.url },
          dataRequest: { mappedFields: MAPPED },
          output: { format: 'csv', compression, seal: keys },
        },
        sealed,
      );
      expect(compressed.parts).toHaveLength(plain.objects.size - 1);
      for (const part of compressed.parts ?? []) {
        expect(part.path.endsWith(`.csv${extension}`)).toBe(true);
        const opened = openResultWithKeys(sealed.objects.get(part.path) as Buffer, keys);
        expect(opened.hmac).toBe(part.hmac);
        expect(opened.sha256).toBe(part.sha256);
        expect(decompress(opened.plaintext).equals(plain.objects.get(part.path.slice(0, -extension.length)) as Buffer)).toBe(true);
      }
      const document = await extract({ format: 'json', compression });
      expect(decompress(document.bytes as Buffer).equals(json.bytes as Buffer)).toBe(true);
    },
  );

  it('a failure in a later table aborts the part being written and never writes the manifest', async () => {
    const whole = await extract({ format: 'csv' });
    const [empty, fidelity] = whole.parts ?? [];
    const sink = new RecordingSink();
    // The limit counts every part's stored bytes: the first two fit, the third (second_t) does not.
    const maxResultBytes = empty.sizeBytes + fidelity.sizeBytes + 5;
    await expect(extract({ format: 'csv' }, sink, { maxResultBytes })).rejects.toMatchObject({ code: 'FET-1101' });
    expect(sink.events).toEqual([
      'open src/empty_t.csv',
      'complete src/empty_t.csv',
      'open src/fidelity.csv',
      'complete src/fidelity.csv',
      'open src/second_t.csv',
      'abort src/second_t.csv',
    ]);
  });

  it('refuses an unknown format or compression, naming the field', async () => {
    await expect(extract({ format: 'xlsx' })).rejects.toMatchObject({
      code: 'FET-0001',
      message: expect.stringContaining('output.format'),
    });
    await expect(extract({ compression: 'brotli' })).rejects.toMatchObject({ message: expect.stringContaining('output.compression') });
  });
});
