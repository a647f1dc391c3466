import { describe, expect, it } from 'vitest';
import { normalizeSslMode, tlsOptions } from './sqlserver-ssl.js';

const CA = '-----BEGIN CERTIFICATE-----\nca\n-----END CERTIFICATE-----';
const CERT = '-----BEGIN CERTIFICATE-----\ncert\n-----END CERTIFICATE-----';
const KEY = '-----BEGIN PRIVATE KEY-----\nkey\n-----END PRIVATE KEY-----';

describe('SQL Server SSL mode → tedious encryption options', () => {
  it('disable, false, null and empty: no encryption, and no certificate material handed over', () => {
    for (const mode of ['disable', 'false', null, '', '  ']) {
      expect(tlsOptions({ mode, ca: CA, cert: CERT, key: KEY })).toEqual({
        mode: mode === 'false' ? 'false' : 'disable',
        encrypt: false,
        trustServerCertificate: false,
        cryptoCredentialsDetails: {},
      });
    }
  });

  it('true: TLS inside TDS, certificate verified against the given CA (never trusted blindly)', () => {
    expect(tlsOptions({ mode: 'true', ca: CA, cert: CERT, key: KEY })).toEqual({
      mode: 'true',
      encrypt: true,
      trustServerCertificate: false,
      cryptoCredentialsDetails: { ca: CA, cert: CERT, key: KEY },
    });
  });

  it('true without a CA verifies against the system roots', () => {
    expect(tlsOptions({ mode: 'true' })).toEqual({
      mode: 'true',
      encrypt: true,
      trustServerCertificate: false,
      cryptoCredentialsDetails: {},
    });
  });

  it('strict: TDS 8.0, verified the same way', () => {
    expect(tlsOptions({ mode: 'strict', ca: CA })).toEqual({
      mode: 'strict',
      encrypt: 'strict',
      trustServerCertificate: false,
      cryptoCredentialsDetails: { ca: CA },
    });
  });

  it('gives a fresh credentials object each time (tedious writes into it)', () => {
    const ssl = { mode: 'true', ca: CA };
    expect(tlsOptions(ssl).cryptoCredentialsDetails).not.toBe(tlsOptions(ssl).cryptoCredentialsDetails);
  });

  it('accepts modes in any case and rejects unknown ones', () => {
    expect(normalizeSslMode('STRICT')).toBe('strict');
    expect(normalizeSslMode(' True ')).toBe('true');
    expect(() => normalizeSslMode('require')).toThrow(/unsupported SQL Server SSL mode "require"/);
    expect(() => tlsOptions({ mode: 'verify-full' })).toThrow(expect.objectContaining({ code: 'FETCHER_SSL_MODE' }));
  });
});
