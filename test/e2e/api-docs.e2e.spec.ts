import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedFetcher, type EmbeddedFetcher } from '../helpers/fetcher-app.js';

/**
 * The API document and Swagger UI, served by @nestjs/swagger loaded on the first request (the
 * decorators recorded at boot are applied then): the same document, schemas and UI as at boot.
 */
describe('API docs loaded on first request', () => {
  let fetcher: EmbeddedFetcher;

  beforeAll(async () => {
    fetcher = await startEmbeddedFetcher();
  });
  afterAll(async () => {
    await fetcher?.close();
  });

  it('serves the OpenAPI document with every route, its answers and the DTO schemas the decorators describe', async () => {
    const response = await fetcher.http.get('/swagger-json');
    expect(response.status).toBe(200);
    const document = response.body as {
      paths: Record<string, Record<string, any>>;
      components: { schemas: Record<string, any>; securitySchemes: object };
    };
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(['/v1/fetcher', '/v1/fetcher/{id}', '/v1/fetcher/{id}/result', '/v1/fetcher/{id}/cancel']),
    );
    // Method, class and property decorators all took effect: tags, responses with examples, schemas.
    const cancel = document.paths['/v1/fetcher/{id}/cancel'].post;
    expect(cancel.tags).toEqual(['jobs']);
    expect(cancel.summary).toBe('Cancel a pending or processing job');
    expect(Object.keys(cancel.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403', '404', '409', '503']));
    expect(cancel.responses['409'].content['application/json'].examples['FET-1110'].value.code).toBe('FET-1110');
    expect(cancel.security).toEqual([{ bearer: [] }]);
    expect(document.components.schemas.JobResponseDto.properties.progress).toBeDefined();
    expect(document.components.schemas.JobProgressDto.properties.tables.example).toBeDefined();
    expect(document.components.schemas.ErrorEnvelopeDto.required).toEqual(expect.arrayContaining(['code', 'title', 'message']));
    expect(Object.keys(document.components.securitySchemes)).toEqual(['bearer']);
    // Built once: a second request answers the same document.
    expect((await fetcher.http.get('/swagger-json')).body).toEqual(document);
  });

  it('serves Swagger UI and its assets', async () => {
    const page = await fetcher.http.get('/swagger');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.text).toContain('swagger-ui');
    const init = await fetcher.http.get('/swagger/swagger-ui-init.js');
    expect(init.status).toBe(200);
    expect(init.text).toContain('/v1/fetcher');
    const bundle = await fetcher.http.get('/swagger/swagger-ui-bundle.js');
    expect(bundle.status).toBe(200);
    expect(bundle.text.length).toBeGreaterThan(100_000);
  });

  it('leaves every other path to the application', async () => {
    expect((await fetcher.http.get('/swaggerx')).body).toMatchObject({ code: 'FET-1001' });
    expect((await fetcher.http.get('/health')).status).toBe(200);
  });
});
