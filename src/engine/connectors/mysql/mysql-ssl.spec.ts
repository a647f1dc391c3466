import { describe, expect, it } from 'vitest';
import { normalizeSslMode, sslPlan } from './mysql-ssl.js';

const CA = '-----BEGIN CERTIFICATE-----\nca\n-----END CERTIFICATE-----';
const CERT = '-----BEGIN CERTIFICATE-----\ncert\n-----END CERTIFICATE-----';
const KEY = '-----BEGIN PRIVATE KEY-----\nkey\n-----END PRIVATE KEY-----';

const error = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('MySQL SSL mode → mysql2 ssl options', () => {
  it('uses plain TCP for false, null and empty modes, even with material present', () => {
    for (const mode of ['false', null, '', '  ']) {
      expect(sslPlan({ mode, ca: CA, cert: CERT, key: KEY })).toEqual({ mode: 'false', first: undefined });
    }
  });

  it('true: TLS with the chain verified against the given CA and the host name checked', () => {
    expect(sslPlan({ mode: 'true', ca: CA, cert: CERT, key: KEY })).toEqual({
      mode: 'true',
      first: { ca: CA, cert: CERT, key: KEY, rejectUnauthorized: true, verifyIdentity: true },
    });
  });

  it('true without a CA relies on the system roots', () => {
    expect(sslPlan({ mode: 'true' }).first).toEqual({ rejectUnauthorized: true, verifyIdentity: true });
  });

  it('skip-verify: TLS without certificate checks, client certificate still sent', () => {
    const plan = sslPlan({ mode: 'skip-verify', cert: CERT, key: KEY });
    expect(plan).toEqual({ mode: 'skip-verify', first: { cert: CERT, key: KEY, rejectUnauthorized: false, verifyIdentity: false } });
    expect(plan.fallback).toBeUndefined();
  });

  it('preferred: TLS without checks first, plain only when the server offers no TLS at all', () => {
    const plan = sslPlan({ mode: 'preferred', ca: CA });
    expect(plan.first).toEqual({ ca: CA, rejectUnauthorized: false, verifyIdentity: false });
    expect(plan.fallback?.ssl).toBeUndefined();
    expect(plan.fallback?.when(error('HANDSHAKE_NO_SSL_SUPPORT', 'Server does not support secure connection'))).toBe(true);
    // A broken or intercepted handshake is not downgraded to plain text.
    expect(plan.fallback?.when(error('HANDSHAKE_SSL_ERROR', 'self-signed certificate'))).toBe(false);
    expect(plan.fallback?.when(error('ER_ACCESS_DENIED_ERROR'))).toBe(false);
    expect(plan.fallback?.when(error('ECONNREFUSED'))).toBe(false);
  });

  it('accepts modes in any case and rejects unknown ones', () => {
    expect(normalizeSslMode('Skip-Verify')).toBe('skip-verify');
    expect(normalizeSslMode(' TRUE ')).toBe('true');
    expect(() => normalizeSslMode('require')).toThrow(/unsupported MySQL SSL mode "require"/);
  });
});
