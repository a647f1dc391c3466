import { expect } from 'vitest';
import { InvalidDatasourceError } from '../../errors/engine-errors.js';
import { type DatasourceUrlOptions, parseDatasourceUrl } from '../datasource-url.js';

/** Distinctive, so a refusal that shows it (or its encoded form) cannot pass unnoticed. */
export const PASSWORD = 'Tr0ub4dor&3xyzzy';
export const AUTH = `alice:${encodeURIComponent(PASSWORD)}@`;

export const CA_PEM = '-----BEGIN CERTIFICATE-----\nQ0EK\n-----END CERTIFICATE-----\n';
export const CERT_PEM = '-----BEGIN CERTIFICATE-----\nQ0VSVAo=\n-----END CERTIFICATE-----\n';
export const KEY_PEM = '-----BEGIN PRIVATE KEY-----\nS0VZCg==\n-----END PRIVATE KEY-----\n';

/** A readFile over fixed contents; any other path fails as a missing file does. */
export function files(contents: Readonly<Record<string, string>>): (path: string) => string {
  return (path) => {
    const text = contents[path];
    if (text === undefined) throw Object.assign(new Error(`ENOENT: no such file or directory, open '${path}'`), { code: 'ENOENT' });
    return text;
  };
}

/**
 * Parses a URL that must be refused: an InvalidDatasourceError whose message contains `problem`,
 * on one line, and never shows the password, encoded or not.
 */
export function expectRefused(url: string, problem: string, options?: DatasourceUrlOptions): InvalidDatasourceError {
  let refusal: unknown;
  try {
    parseDatasourceUrl(url, options);
  } catch (error) {
    refusal = error;
  }
  expect(refusal, `${url} was accepted`).toBeInstanceOf(InvalidDatasourceError);
  const error = refusal as InvalidDatasourceError;
  expect(error.message).toContain(problem);
  expectNoSecret(error);
  return error;
}

export function expectNoSecret(error: InvalidDatasourceError): void {
  const said = `${error.message}\n${JSON.stringify(error.fields)}`;
  for (const secret of [PASSWORD, encodeURIComponent(PASSWORD), 'Tr0ub4dor', '3xyzzy']) expect(said).not.toContain(secret);
  expect(error.message).not.toContain('\n');
  expect(Object.keys(error.fields ?? {})).toEqual(['url']);
  expect(error.stack ?? '').not.toContain(PASSWORD);
}
