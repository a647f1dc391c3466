import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import type { AppConfig } from '../config/app-config.js';

export function setupSwagger(app: INestApplication, config: AppConfig): void {
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Fetcher')
      .setDescription(
        'Extract fields of tables from registered databases into one signed (HMAC-SHA256), encrypted (AES-256-GCM) result in object storage. Errors use the FET envelope `{code, title, message, fields?, details?}`.',
      )
      .setVersion(config.version)
      .addTag('connections', 'Registered databases, owned by products')
      .addTag('jobs', 'Extraction jobs')
      .addTag('system', 'Health, readiness, version')
      .build(),
  );
  SwaggerModule.setup('swagger', app, document, { jsonDocumentUrl: 'swagger-json' });
}
