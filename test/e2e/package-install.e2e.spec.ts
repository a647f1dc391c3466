import { createHash } from 'node:crypto';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_MASTER_KEY } from '../helpers/fetcher-app.js';
import { freePort, startFetcherProcess } from '../helpers/fetcher-process.js';
import { createTempDatabase, TEST_PG, useTempDatabase } from '../helpers/pg-database.js';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const EXPECTED =
  '{"pg_source":{"accounts":[{"id":1,"email":"one@example.com","balance":"1.50"},{"id":2,"email":"two@example.com","balance":"-2.25"}]}}';

/** The code block `page` marks `<!-- example: <file> -->`. */
function docsExample(file: string, page = 'docs/engine.md', language = 'js'): string {
  const text = readFileSync(join(root, page), 'utf8');
  const marker = file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const found = new RegExp(`<!-- example: ${marker} -->\\n\`\`\`${language}\\n([\\s\\S]*?)\\n\`\`\``).exec(text);
  if (!found) throw new Error(`${page} has no example ${file}`);
  return found[1];
}

/** The walkthrough's tables (docker/fixtures/postgres/init.sql, after its CREATE DATABASE). */
function walkthroughFixture(): string {
  const sql = readFileSync(join(root, 'docker/fixtures/postgres/init.sql'), 'utf8');
  return sql.slice(sql.indexOf('\n', sql.indexOf('\\connect')) + 1);
}

/** tsc as strict as a careful consumer sets it, declarations included (skipLibCheck off). */
const STRICT_TSC = [
  '--strict',
  '--noUncheckedIndexedAccess',
  '--exactOptionalPropertyTypes',
  '--module',
  'nodenext',
  '--moduleResolution',
  'nodenext',
  '--target',
  'es2022',
  '--lib',
  'es2023',
];

describe('the packed package, installed in an empty folder', () => {
  const pg = useTempDatabase('package_install');
  let work: string;
  let consumer: string;
  const node = (script: string, env: Record<string, string>) =>
    spawnSync(process.execPath, [script], { cwd: consumer, encoding: 'utf8', env: { PATH: process.env.PATH ?? '', ...env } });

  beforeAll(async () => {
    await pg().query(`CREATE TABLE accounts (id int PRIMARY KEY, email text, balance numeric(10,2));
      INSERT INTO accounts VALUES (1, 'one@example.com', 1.5), (2, 'two@example.com', -2.25);`);
    work = mkdtempSync(join(tmpdir(), 'fetcher-package-'));
    // The suite runs on the build it made first; packing must not rebuild dist/ under the other tests.
    execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', work], { cwd: root, stdio: 'ignore' });
    const tarball = join(work, readdirSync(work).find((name) => name.endsWith('.tgz')) as string);
    consumer = join(work, 'consumer');
    mkdirSync(consumer);
    writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    // No install script: the embedded store is Node's own SQLite, nothing is compiled.
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], {
      cwd: consumer,
      stdio: 'ignore',
    });
  }, 300_000);

  afterAll(async () => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('holds the built JS and its .d.ts, and no source, spec or test helper', () => {
    const installed = join(consumer, 'node_modules/fetcher');
    expect(readdirSync(join(installed, 'dist/engine'))).toEqual(
      expect.arrayContaining(['index.js', 'index.d.ts', 'engine.js', 'engine.d.ts']),
    );
    expect(readdirSync(join(installed, 'dist/client'))).toEqual(expect.arrayContaining(['index.js', 'index.d.ts', 'openapi.d.ts']));
    const listing = execFileSync('find', ['.', '-name', '*.ts', '!', '-name', '*.d.ts'], { cwd: installed, encoding: 'utf8' });
    expect(listing.trim()).toBe('');
    expect(execFileSync('find', ['dist', '-path', '*testing*'], { cwd: installed, encoding: 'utf8' }).trim()).toBe('');
  });

  it('imports { createEngine } from "fetcher/engine" in a plain ESM script and extracts a table into a file and into memory', () => {
    writeFileSync(
      join(consumer, 'extract.mjs'),
      `import { createWriteStream, readFileSync } from 'node:fs';
       import { createEngine } from 'fetcher/engine';
       const engine = createEngine();
       const request = { datasources: { pg_source: process.env.PG_URL }, dataRequest: { mappedFields: { pg_source: { accounts: ['*'] } } } };
       const toFile = await engine.extract(request, createWriteStream('out.json'));
       const inMemory = await engine.extract(request);
       console.log(JSON.stringify({ file: readFileSync('out.json', 'utf8'), memory: inMemory.bytes.toString(), sha: [toFile.sha256, inMemory.sha256] }));`,
    );
    const run = node('extract.mjs', { PG_URL: pg().url });
    expect(run.status, run.stderr).toBe(0);
    const { file, memory, sha } = JSON.parse(run.stdout) as { file: string; memory: string; sha: string[] };
    expect(file).toBe(EXPECTED);
    expect(memory).toBe(EXPECTED);
    expect(sha[0]).toBe(sha[1]);
  });

  it('runs the embedding example of docs/engine.md as written', () => {
    writeFileSync(join(consumer, 'embed.mjs'), docsExample('embed.mjs'));
    const run = node('embed.mjs', { PG_URL: pg().url, OUT_FILE: join(consumer, 'embedded.json') });
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ rows: 2, rowCounts: { pg_source: { accounts: 2 } } });
    expect(readFileSync(join(consumer, 'embedded.json'), 'utf8')).toBe(EXPECTED);
  });

  it('gives a working `npx --no-install fetcher`', () => {
    writeFileSync(join(consumer, 'request.json'), JSON.stringify({ mappedFields: { pg_source: { accounts: ['*'] } } }));
    const run = spawnSync(
      'npx',
      ['--no-install', 'fetcher', 'extract', '--request', 'request.json', '--datasource', 'pg_source=env:PG_URL', '--quiet'],
      {
        cwd: consumer,
        encoding: 'utf8',
        env: { ...process.env, PG_URL: pg().url },
      },
    );
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toBe(EXPECTED);
  });

  it('writes every format from the package: csv+gzip parts in memory from the library, a Parquet folder from the command', () => {
    writeFileSync(
      join(consumer, 'formats.mjs'),
      `import { gunzipSync } from 'node:zlib';
       import { createEngine } from 'fetcher/engine';
       const result = await createEngine().extract({
         datasources: { pg_source: process.env.PG_URL },
         dataRequest: { mappedFields: { pg_source: { accounts: ['*'] } } },
         output: { format: 'csv', compression: 'gzip' },
       });
       console.log(JSON.stringify({ manifest: JSON.parse(result.bytes.toString()), csv: result.parts.map((part) => gunzipSync(part.bytes).toString()) }));`,
    );
    const library = node('formats.mjs', { PG_URL: pg().url });
    expect(library.status, library.stderr).toBe(0);
    const { manifest, csv } = JSON.parse(library.stdout) as { manifest: { parts: { path: string }[] }; csv: string[] };
    expect(manifest.parts.map((part) => part.path)).toEqual(['pg_source/accounts.csv.gz']);
    expect(csv).toEqual(['id,email,balance\n1,one@example.com,1.50\n2,two@example.com,-2.25\n']);

    writeFileSync(join(consumer, 'request.json'), JSON.stringify({ mappedFields: { pg_source: { accounts: ['*'] } } }));
    const command = spawnSync(
      'npx',
      [
        '--no-install',
        'fetcher',
        'extract',
        '--request',
        'request.json',
        '--datasource',
        'pg_source=env:PG_URL',
        '--format',
        'parquet',
        '--out',
        'parquet-out',
        '--quiet',
      ],
      { cwd: consumer, encoding: 'utf8', env: { ...process.env, PG_URL: pg().url } },
    );
    expect(command.status, command.stderr).toBe(0);
    const file = readFileSync(join(consumer, 'parquet-out/pg_source/accounts.parquet'));
    // A Parquet file opens and ends with its magic; the manifest's digest is the file's.
    expect([file.subarray(0, 4).toString(), file.subarray(-4).toString()]).toEqual(['PAR1', 'PAR1']);
    const listed = JSON.parse(readFileSync(join(consumer, 'parquet-out/manifest.json'), 'utf8')) as {
      parts: { sha256: string; rowCount: number }[];
    };
    expect(listed.parts).toEqual([expect.objectContaining({ rowCount: 2, sha256: createHash('sha256').update(file).digest('hex') })]);
  });

  it('gives `npx --no-install fetcher schema`, which holds a catalog to its --max-bytes (FET-1044, exit 1)', () => {
    const schema = (...flags: string[]) =>
      spawnSync('npx', ['--no-install', 'fetcher', 'schema', pg().url, ...flags], { cwd: consumer, encoding: 'utf8' });
    const discovered = schema();
    expect(discovered.status, discovered.stderr).toBe(0);
    expect(discovered.stdout).toContain('accounts');
    const overBudget = schema('--max-bytes', '64');
    expect(overBudget.status).toBe(1);
    expect(overBudget.stderr).toMatch(/^fetcher schema: FET-1044 .*more than 64 bytes of schema catalog/m);
  });

  it('is typed: a TypeScript consumer compiles against its declarations alone (skipLibCheck off)', () => {
    writeFileSync(
      join(consumer, 'typed.ts'),
      `import { createEngine, FetcherError, FetCode, type ExtractResult, type ProgressEvent } from 'fetcher/engine';
       const engine = createEngine({ limits: { timeoutMs: 60_000 }, egress: { allowPrivateHosts: false } });
       export async function run(url: string): Promise<ExtractResult | FetCode> {
         const seen: ProgressEvent[] = [];
         try {
           return await engine.extract({ datasources: { pg: url }, dataRequest: { mappedFields: { pg: { accounts: ['*'] } } }, onProgress: (e) => void seen.push(e) });
         } catch (error) {
           if (error instanceof FetcherError) return error.code;
           throw error;
         }
       }`,
    );
    const tsc = spawnSync(
      join(root, 'node_modules/.bin/tsc'),
      [
        '--noEmit',
        '--strict',
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        '--target',
        'es2022',
        '--types',
        'node',
        '--typeRoots',
        join(root, 'node_modules/@types'),
        'typed.ts',
      ],
      { cwd: consumer, encoding: 'utf8' },
    );
    expect(tsc.status, tsc.stdout + tsc.stderr).toBe(0);
  });

  it('runs the README’s TypeScript walkthrough as written: compiled strictly against fetcher/client, then twice against a running Fetcher', async () => {
    const example = readFileSync(join(root, 'examples/walkthrough.ts'), 'utf8');
    expect(docsExample('examples/walkthrough.ts', 'README.md', 'ts')).toBe(example.trimEnd());
    writeFileSync(join(consumer, 'walkthrough.ts'), example);
    const tsc = spawnSync(
      join(root, 'node_modules/.bin/tsc'),
      [...STRICT_TSC, '--types', 'node', '--typeRoots', join(root, 'node_modules/@types'), '--outDir', 'out', 'walkthrough.ts'],
      { cwd: consumer, encoding: 'utf8' },
    );
    expect(tsc.status, tsc.stdout + tsc.stderr).toBe(0);

    const source = await createTempDatabase('package_walkthrough');
    const dataDir = mkdtempSync(join(tmpdir(), 'fetcher-walkthrough-'));
    const port = await freePort();
    const fetcher = await startFetcherProcess(
      { PORT: String(port), DATA_DIR: dataDir, APP_ENC_KEY: TEST_MASTER_KEY, AUTH_MODE: 'none' },
      port,
    );
    try {
      await source.query(walkthroughFixture());
      const env = {
        FETCHER_URL: fetcher.url,
        SOURCE_HOST: TEST_PG.host,
        SOURCE_PORT: String(TEST_PG.port),
        SOURCE_USER: TEST_PG.user,
        SOURCE_DATABASE: source.name,
        ...(TEST_PG.password ? { SOURCE_PASSWORD: TEST_PG.password } : {}),
      };
      const first = node('out/walkthrough.js', env);
      expect(first.status, first.stderr).toBe(0);
      const jobId = /^job (\S+)$/m.exec(first.stdout)?.[1];
      expect(jobId).toMatch(/^[0-9a-f-]{36}$/);
      expect(first.stdout).toContain('pg_source.accounts: 2 rows\n');
      expect(first.stdout).toContain('pg_source.accounting.invoices: 2 rows\n');
      const result = JSON.parse(readFileSync(join(consumer, 'result.json'), 'utf8')) as Record<string, Record<string, unknown[]>>;
      expect(result.pg_source?.accounts).toEqual([
        { id: 1, email: 'ana@example.com', balance: '100.50' },
        { id: 3, email: 'cy@example.com', balance: '9999999999.99' },
      ]);
      const sha256 = createHash('sha256')
        .update(readFileSync(join(consumer, 'result.json')))
        .digest('hex');
      expect(first.stdout).toContain(`result.json: SHA-256 ${sha256} verified\n1 completed job(s) for reporter\n`);
      // Again, as a newcomer reruns it: the connection exists (409 FET-1002, taken in stride), the job is the same one.
      const again = node('out/walkthrough.js', env);
      expect(again.status, again.stderr).toBe(0);
      expect(again.stdout).toContain(`job ${jobId} (the same request within the dedup window)\n`);
    } finally {
      await fetcher.stop();
      await source.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
