import { randomBytes } from 'node:crypto';
import secrets from './test-secrets.json' with { type: 'json' };

/** The suite's fixed credentials (test-secrets.json): tests take them from here, the log scan reads the same file. */
export const TEST_SECRETS = secrets.values;

/** A fresh password of the shape the log scan knows (`Pw-` and hex), for a database user a test creates. */
export function generatedPassword(): string {
  return `Pw-${randomBytes(8).toString('hex')}`;
}
