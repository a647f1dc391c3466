import { createFetcherClient, downloadToFile, FetcherApiError } from 'fetcher/client';

// Where Fetcher answers, the credential it wants (none with `npm start`'s AUTH_MODE=none), and the
// product the connection routes act for (X-Product-Name).
const client = createFetcherClient({
  baseUrl: process.env.FETCHER_URL ?? 'http://localhost:4006',
  token: process.env.FETCHER_TOKEN,
  productName: 'reporter',
});

// The walkthrough's connection; the typed client under `raw` covers every route of the API.
const registered = await client.raw.POST('/v1/management/connections', {
  body: {
    configName: 'pg_source',
    type: 'POSTGRESQL',
    host: process.env.SOURCE_HOST ?? '127.0.0.1',
    port: Number(process.env.SOURCE_PORT ?? 5432),
    databaseName: process.env.SOURCE_DATABASE ?? 'source',
    userName: process.env.SOURCE_USER ?? 'postgres',
    password: process.env.SOURCE_PASSWORD ?? 'postgres',
  },
});
if (registered.error !== undefined) {
  const error = FetcherApiError.from(registered.response, registered.error);
  // FET-1002: registered by an earlier run, which is fine here.
  if (error.code !== 'FET-1002') throw error;
}

// Two tables in two schemas: three columns of one, all of the other, the first filtered.
const accepted = await client.submit({
  dataRequest: {
    mappedFields: { pg_source: { accounts: ['id', 'email', 'balance'], 'accounting.invoices': ['*'] } },
    filters: { pg_source: { accounts: { balance: { gt: ['0'] } } } },
  },
  metadata: { source: 'reporter', correlationId: 'walkthrough-ts' },
});
console.log(`job ${accepted.jobId}${accepted.duplicate ? ' (the same request within the dedup window)' : ''}`);

const job = await client.waitFor(accepted.jobId, { timeoutMs: 60_000 });
if (job.status !== 'completed') throw new Error(`job ${job.id} ${job.status}: ${job.error?.message ?? ''}`);
for (const [datasource, tables] of Object.entries(job.result?.rowCounts ?? {})) {
  for (const [table, rows] of Object.entries(tables)) console.log(`${datasource}.${table}: ${rows} rows`);
}

// Streamed to disk and renamed into place only once its SHA-256 matched the one announced.
const sha256 = await downloadToFile(client, job.id, 'result.json');
console.log(`result.json: SHA-256 ${sha256} verified`);

const page = await client.list({ source: 'reporter', status: 'completed' });
console.log(`${page.total} completed job(s) for reporter`);
