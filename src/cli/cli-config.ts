import { randomBytes } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { AppConfig } from '../config/app-config.js';
import { loadAppConfig } from '../config/load-config.js';
import { CliError } from './cli-io.js';

/**
 * The service's configuration for a one-off command that needs the master keys. Unlike a boot,
 * it never generates a development key: a fresh key opens nothing that exists, and a key file
 * left in the wrong DATA_DIR would later be picked up by a service booting there.
 */
export function loadConfigWithExistingKey(env: NodeJS.ProcessEnv): AppConfig {
  if (!env.APP_ENC_KEY) {
    const keyPath = join(resolve(env.DATA_DIR || './data'), 'app-enc-key');
    if (!existsSync(keyPath)) {
      throw new CliError(
        `APP_ENC_KEY is not set and there is no development key at ${keyPath}: run with the service's APP_ENC_KEY, APP_ENC_KEY_VERSION and APP_ENC_KEY_<version> variables`,
      );
    }
  }
  return loadAppConfig(env, {
    // Only reached if the check above ever disagrees with loadAppConfig about the key's path.
    onGeneratedKey: (path) => {
      rmSync(path, { force: true });
      throw new CliError(`refusing to generate a development key (${path}); set APP_ENC_KEY`);
    },
  });
}

/**
 * The service's configuration (storage, port) for a command that holds no master key: the key
 * variables are replaced by a throw-away key that is never used, so nothing is read from or
 * written to the development key file.
 */
export function loadConfigWithoutKeys(env: NodeJS.ProcessEnv): AppConfig {
  const keyless = Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('APP_ENC_KEY')));
  return loadAppConfig({ ...keyless, APP_ENC_KEY: randomBytes(32).toString('base64') });
}
