import './bootstrap/v8-flags.js';
import 'reflect-metadata';
import { existsSync } from 'node:fs';
import { Logger } from '@nestjs/common';
import { createFetcherApp, listenPort } from './bootstrap/create-app.js';
import { openBootLogger, type BootLogger } from './common/logging/boot-logger.js';
import { scrubSecrets } from './common/logging/scrub-secrets.js';
import { ConfigError, loadAppConfig } from './config/load-config.js';

async function main(): Promise<void> {
  if (existsSync('.env')) process.loadEnvFile('.env');
  const generated: string[] = [];
  let config;
  try {
    config = loadAppConfig(process.env, { onGeneratedKey: (path) => generated.push(path) });
  } catch (error) {
    // Before the configuration there is no log format yet: a plain message for the operator.
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const boot = await openBootLogger(config);
  for (const path of generated) {
    boot.logger.warn({ keyFile: path }, `APP_ENC_KEY is not set: generated a development key in ${path}. Set APP_ENC_KEY in production.`);
  }
  if (config.auth.mode === 'none') {
    boot.logger.warn(
      { authMode: 'none', host: config.http.host },
      config.http.unauthenticatedNetwork
        ? `AUTH_MODE=none: every caller acts as the operator, on HOST=${config.http.host} (ALLOW_UNAUTHENTICATED_NETWORK=true).`
        : `AUTH_MODE=none: every caller acts as the operator; listening on ${config.http.host} only. Set AUTH_MODE=apikey or jwt before exposing this service.`,
    );
  }
  const port = listenPort(config);
  try {
    const app = await createFetcherApp(config, boot.nest);
    await app.listen(port, config.http.host);
  } catch (error) {
    failed(error, boot);
  }
  boot.close();
  const queue = config.redisUrl ? 'bullmq' : 'in-process';
  new Logger('Bootstrap').log(
    `Fetcher ${config.version} (${config.role}) listening on http://${config.http.host}:${port} — store ${config.database.kind}, queue ${queue}, results ${config.storage.kind}, Node.js ${process.version}`,
    {
      version: config.version,
      role: config.role,
      host: config.http.host,
      port,
      store: config.database.kind,
      queue,
      results: config.storage.kind,
      node: process.version,
    },
  );
}

function failed(error: unknown, boot?: BootLogger): never {
  // The message only: a driver's stack adds nothing for an operator, and the scrubber masks a DSN's password.
  const message = `Fetcher failed to start: ${scrubSecrets(error instanceof Error ? error.message : String(error))}`;
  if (boot) {
    boot.logger.fatal(message);
    boot.close();
  } else {
    process.stderr.write(`${message}\n`);
  }
  process.exit(1);
}

main().catch((error: unknown) => failed(error));
