import { createRequire } from 'node:module';
import type { INestApplication } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import type * as Swagger from '@nestjs/swagger';
import type { NextFunction, Request, RequestHandler, Response, Router } from 'express';
import type { AppConfig } from '../config/app-config.js';
import { BEARER_SCHEME } from '../auth/api-auth.decorator.js';
import { loadApiDocs } from '../common/http/api-docs.js';

const DOCS_PATH = '/swagger';
const DOCUMENT_PATH = '/swagger-json';

/**
 * Serves the OpenAPI document at /swagger and /swagger-json, with @nestjs/swagger loaded on the
 * first request to either: a process whose docs nobody reads never holds the library nor the heap
 * of scanning every route and DTO. SwaggerModule itself sets up the routes, on a router of their
 * own mounted ahead of the application's, so it serves exactly what it would at boot.
 */
export function setupSwagger(app: NestExpressApplication, config: AppConfig): void {
  let router: Promise<Router> | undefined;
  app.use((request: Request, response: Response, next: NextFunction) => {
    const path = request.path;
    if (path !== DOCUMENT_PATH && path !== DOCS_PATH && !path.startsWith(`${DOCS_PATH}/`)) return next();
    router ??= docsRouter(app, config);
    router.then((docs) => docs(request, response, next), next);
  });
}

async function docsRouter(app: INestApplication, config: AppConfig): Promise<Router> {
  const swagger = await loadApiDocs();
  // The express that @nestjs/platform-express itself runs on.
  const express = createRequire(createRequire(import.meta.url).resolve('@nestjs/platform-express'))('express') as typeof import('express');
  const router = express.Router();
  // What SwaggerModule.setup uses of an application and its adapter, pointed at this router.
  const adapter = {
    get: (path: string, handler: RequestHandler) => router.get(path, handler),
    getRequestUrl: (request: Request) => request.originalUrl,
    getType: () => 'express',
  };
  const routes = {
    getHttpAdapter: () => adapter,
    use: (path: string, handler: RequestHandler) => router.use(path, handler),
    useStaticAssets: (root: string, options: { prefix: string }) => router.use(options.prefix, express.static(root)),
  };
  swagger.SwaggerModule.setup('swagger', routes as unknown as INestApplication, () => buildDocument(swagger, app, config), {
    jsonDocumentUrl: 'swagger-json',
    swaggerOptions: { persistAuthorization: true },
  });
  return router;
}

function buildDocument(
  { DocumentBuilder, SwaggerModule }: typeof Swagger,
  app: INestApplication,
  config: AppConfig,
): Swagger.OpenAPIObject {
  return closedSchemas(
    SwaggerModule.createDocument(
      app,
      new DocumentBuilder()
        .setTitle('Fetcher')
        .setDescription(
          'Extract fields of tables from registered databases into one signed (HMAC-SHA256), encrypted (AES-256-GCM) result in object storage. ' +
            'Errors use the FET envelope `{code, title, message, fields?, details?}`; each error answer shows an example of every code the route gives under that status. ' +
            'The pre-filled request bodies are the README walkthrough’s: register the connection pg_source (X-Product-Name: reporter), then submit the job.',
        )
        .setVersion(config.version)
        .addBearerAuth(
          {
            type: 'http',
            scheme: 'bearer',
            description:
              config.auth.mode === 'jwt'
                ? 'A JWT from your identity provider (products in its products claim; fetcher:admin in roles for operators).'
                : config.auth.mode === 'apikey'
                  ? 'An API key: a product key from POST /v1/management/api-keys, or an operator key from AUTH_ADMIN_KEYS.'
                  : 'Not checked: AUTH_MODE=none.',
          },
          BEARER_SCHEME,
        )
        .addTag('connections', 'Registered databases, owned by products')
        .addTag('jobs', 'Extraction jobs')
        .addTag('api keys', 'Product API keys (AUTH_MODE=apikey, operators only)')
        .addTag('system', 'Health, readiness, version')
        .build(),
    ),
  );
}

/**
 * Every DTO schema closed (`additionalProperties: false`) unless it says otherwise: the request
 * validation refuses an unknown member (FET-0001) and a response has only the members its DTO
 * lists, so a closed schema is the truth, and the suite's body check then catches a member that
 * appears undocumented. The free-form maps (metadata, mappedFields…) are inline schemas with their
 * own `additionalProperties`, untouched here.
 */
function closedSchemas(document: Swagger.OpenAPIObject): Swagger.OpenAPIObject {
  for (const schema of Object.values(document.components?.schemas ?? {})) {
    if ('$ref' in schema || schema.type !== 'object' || !schema.properties || 'additionalProperties' in schema) continue;
    schema.additionalProperties = false;
  }
  return document;
}
