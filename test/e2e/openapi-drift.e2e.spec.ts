import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientTypesDrift, documentDrift, readCommitted } from '../../scripts/openapi-generate.mjs';
import { startEmbeddedFetcher, type EmbeddedFetcher } from '../helpers/fetcher-app.js';

/**
 * The committed contract cannot drift from the code: docs/openapi.json is what the app serves, and
 * src/client/openapi.ts is what that document generates. Each failure says to run `npm run openapi`.
 */
describe('docs/openapi.json and src/client/openapi.ts against the served document', () => {
  let fetcher: EmbeddedFetcher;
  let committed: { document: string; types: string };

  beforeAll(async () => {
    // The embedded defaults, as `npm run openapi` starts dist/main.js.
    fetcher = await startEmbeddedFetcher();
    committed = await readCommitted();
  });
  afterAll(async () => fetcher?.close());

  it('docs/openapi.json is byte for byte the document /swagger-json serves', async () => {
    const served = await fetcher.http.get('/swagger-json').expect(200);
    const drift = await documentDrift(served.body, committed.document);
    expect(drift, drift).toBeUndefined();
  });

  it('src/client/openapi.ts is exactly what docs/openapi.json generates', async () => {
    const drift = await clientTypesDrift(JSON.parse(committed.document), committed.types);
    expect(drift, drift).toBeUndefined();
  });

  it('reports drift, naming `npm run openapi`, when the document changes and the client is not regenerated', async () => {
    const document = JSON.parse(committed.document) as { components: { schemas: Record<string, { properties?: object }> } };
    const accepted = document.components.schemas.JobAcceptedDto;
    accepted.properties = { ...accepted.properties, queuePosition: { type: 'integer' } };
    const drift = await clientTypesDrift(document, committed.types);
    expect(drift).toMatch(/^src\/client\/openapi\.ts is not what docs\/openapi\.json generates .*queuePosition.*Run `npm run openapi`/s);

    const served = JSON.parse(committed.document) as { info: { version: string } };
    served.info.version = `${served.info.version}-changed`;
    expect(await documentDrift(served, committed.document)).toMatch(/Run `npm run openapi`/);
  });
});
