import 'reflect-metadata';
import { existsSync } from 'node:fs';
import { createFetcherApp, createLogger, listenPort } from './bootstrap/create-app.js';
import { ConfigError, loadAppConfig } from './config/load-config.js';

async function main(): Promise<void> {
  if (existsSync('.env')) process.loadEnvFile('.env');
  const generated: string[] = [];
  let config;
  try {
    config = loadAppConfig(process.env, { onGeneratedKey: (path) => generated.push(path) });
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
  const logger = createLogger(config);
  for (const path of generated) {
    logger.warn(`APP_ENC_KEY is not set: generated a development key in ${path}. Set APP_ENC_KEY in production.`, 'Bootstrap');
  }
  if (config.auth.mode === 'none') {
    logger.warn(
      'AUTH_MODE=none: every caller acts as the operator. Set AUTH_MODE=apikey or jwt before exposing this service.',
      'Bootstrap',
    );
  }
  const app = await createFetcherApp(config, logger);
  const port = listenPort(config);
  await app.listen(port, config.http.host);
  logger.log(
    `Fetcher ${config.version} (${config.role}) listening on http://${config.http.host}:${port} — store ${config.database.kind}, queue ${config.redisUrl ? 'bullmq' : 'in-process'}, results ${config.storage.kind}`,
    'Bootstrap',
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`Fetcher failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
