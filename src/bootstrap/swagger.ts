import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule, type OpenAPIObject } from '@nestjs/swagger';
import type { AppConfig } from '../config/app-config.js';
import { BEARER_SCHEME } from '../auth/api-auth.decorator.js';

/**
 * Serves the OpenAPI document at /swagger and /swagger-json. SwaggerModule builds it on the first
 * request to either (and keeps it) rather than at boot: a process whose docs nobody reads never
 * spends the heap of scanning every route and DTO.
 */
export function setupSwagger(app: INestApplication, config: AppConfig): void {
  SwaggerModule.setup('swagger', app, () => buildDocument(app, config), { jsonDocumentUrl: 'swagger-json', swaggerOptions: { persistAuthorization: true } });
}

function buildDocument(app: INestApplication, config: AppConfig): OpenAPIObject {
  return SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Fetcher')
      .setDescription(
        'Extract fields of tables from registered databases into one signed (HMAC-SHA256), encrypted (AES-256-GCM) result in object storage. Errors use the FET envelope `{code, title, message, fields?, details?}`.',
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
  );
}
