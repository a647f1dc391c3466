import { describe, expect, it } from 'vitest';
import { normalizeSslMode, sslPlan } from './postgres-ssl.js';

const CA = '-----BEGIN CERTIFICATE-----\nca\n-----END CERTIFICATE-----';
const CERT = '-----BEGIN CERTIFICATE-----\ncert\n-----END CERTIFICATE-----';
const KEY = '-----BEGIN PRIVATE KEY-----\nkey\n-----END PRIVATE KEY-----';

describe('PostgreSQL sslmode → node-pg ssl options', () => {
  it('uses plain TCP for disable, null and empty modes', () => {
    for (const mode of ['disable', null, '', '  ']) {
      expect(sslPlan({ mode, ca: CA })).toEqual({ mode: 'disable', first: false });
    }
  });

  it('allow: plain first, TLS without checks only when pg_hba rejects plain connections', () => {
    const plan = sslPlan({ mode: 'allow' });
    expect(plan.first).toBe(false);
    expect(plan.fallback?.ssl).toEqual({ rejectUnauthorized: false });
    expect(plan.fallback?.when(Object.assign(new Error('no pg_hba.conf entry'), { code: '28000' }))).toBe(true);
    expect(plan.fallback?.when(Object.assign(new Error('password authentication failed'), { code: '28P01' }))).toBe(false);
    expect(plan.fallback?.when(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }))).toBe(false);
  });

  it('prefer: TLS without checks first, plain only when the server has no SSL at all', () => {
    const plan = sslPlan({ mode: 'prefer', cert: CERT, key: KEY });
    expect(plan.first).toEqual({ cert: CERT, key: KEY, rejectUnauthorized: false });
    expect(plan.fallback?.ssl).toBe(false);
    expect(plan.fallback?.when(new Error('The server does not support SSL connections'))).toBe(true);
    // A broken handshake is not downgraded to plain text.
    expect(plan.fallback?.when(Object.assign(new Error('self-signed certificate'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }))).toBe(false);
  });

  it('require: TLS without certificate checks, or chain-verified against a given CA', () => {
    expect(sslPlan({ mode: 'require' })).toEqual({ mode: 'require', first: { rejectUnauthorized: false } });
    const withCa = sslPlan({ mode: 'require', ca: CA }).first;
    expect(withCa).toMatchObject({ ca: CA, rejectUnauthorized: true });
    expect(withCa && withCa.checkServerIdentity?.('db.example.com', {} as never)).toBeUndefined();
    expect(sslPlan({ mode: 'require' }).fallback).toBeUndefined();
  });

  it('verify-ca: chain verified, host name not checked', () => {
    const first = sslPlan({ mode: 'verify-ca', ca: CA, cert: CERT, key: KEY }).first;
    expect(first).toMatchObject({ ca: CA, cert: CERT, key: KEY, rejectUnauthorized: true });
    expect(first && typeof first.checkServerIdentity).toBe('function');
    expect(first && first.checkServerIdentity?.('other.example.com', {} as never)).toBeUndefined();
  });

  it('verify-full: chain and host name verified by node defaults', () => {
    const plan = sslPlan({ mode: 'verify-full', ca: CA });
    expect(plan).toEqual({ mode: 'verify-full', first: { ca: CA, rejectUnauthorized: true } });
  });

  it('verify modes without a CA rely on the system roots', () => {
    expect(sslPlan({ mode: 'verify-full' }).first).toEqual({ rejectUnauthorized: true });
  });

  it('accepts modes in any case and rejects unknown ones', () => {
    expect(normalizeSslMode('VERIFY-FULL')).toBe('verify-full');
    expect(() => normalizeSslMode('true')).toThrow(/unsupported PostgreSQL SSL mode/);
  });
});
