import { rootCertificates } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { chainPems, normalizeSslMode, tlsPlan, walletFor } from './oracle-ssl.js';
import { throwAwayIdentity } from './oracle-tls-identity.js';

const CA = '-----BEGIN CERTIFICATE-----\nca\n-----END CERTIFICATE-----';
const CERT = '-----BEGIN CERTIFICATE-----\ncert\n-----END CERTIFICATE-----';
const KEY = '-----BEGIN PRIVATE KEY-----\nkey\n-----END PRIVATE KEY-----';

describe('Oracle SSL mode → node-oracledb thin TLS', () => {
  it('uses plain TCP for null, empty, disable and false, even with material present', () => {
    for (const mode of [null, '', '  ', 'disable', 'false', 'FALSE']) {
      const plan = tlsPlan({ mode, ca: CA, cert: CERT, key: KEY });
      expect(plan.protocol).toBe('TCP');
      expect(plan).not.toHaveProperty('walletContent');
      expect(plan.trustPresentedChain).toBe(false);
    }
  });

  it('true / enable: TCPS, chain verified against the system roots, host name not matched', () => {
    for (const mode of ['true', 'enable', 'Enable']) {
      expect(tlsPlan({ mode })).toEqual({
        mode: mode.toLowerCase(),
        protocol: 'TCPS',
        sslServerDNMatch: false,
        trustPresentedChain: false,
      });
    }
  });

  it('true with a CA: the wallet trusts that CA only, behind a client identity thin mode needs', () => {
    const plan = tlsPlan({ mode: 'true', ca: CA });
    const identity = throwAwayIdentity();
    expect(plan.walletContent).toBe(`${identity.certificatePem.trim()}\n${identity.privateKeyPem.trim()}\n${CA}\n`);
    expect(plan.sslServerDNMatch).toBe(false);
  });

  it('verify: TCPS with the host name matched; an exact DN from metadata when given', () => {
    expect(tlsPlan({ mode: 'verify', ca: CA })).toMatchObject({ protocol: 'TCPS', sslServerDNMatch: true, trustPresentedChain: false });
    expect(tlsPlan({ mode: 'verify' }, { sslServerCertDN: ' CN=db.example,O=Example ' })).toMatchObject({
      sslServerDNMatch: true,
      sslServerCertDN: 'CN=db.example,O=Example',
    });
    expect(tlsPlan({ mode: 'verify' }, { sslServerCertDN: '' })).not.toHaveProperty('sslServerCertDN');
    expect(tlsPlan({ mode: 'verify' }, { sslServerCertDN: 7 })).not.toHaveProperty('sslServerCertDN');
  });

  it('skip-verify: TCPS without host matching, trusting the chain the server presents', () => {
    expect(tlsPlan({ mode: 'skip-verify' })).toEqual({
      mode: 'skip-verify',
      protocol: 'TCPS',
      sslServerDNMatch: false,
      trustPresentedChain: true,
    });
  });

  it('sends the record’s client certificate and key, first in the wallet', () => {
    const wallet = tlsPlan({ mode: 'verify', ca: CA, cert: CERT, key: KEY }).walletContent!;
    expect(wallet).toBe(`${CERT}\n${KEY}\n${CA}\n`);
    expect(wallet).not.toContain(throwAwayIdentity().privateKeyPem.trim());
  });

  it('keeps the system roots when a client certificate comes without a CA (a wallet CA replaces them)', () => {
    const wallet = walletFor({ mode: 'true', cert: CERT, key: KEY })!;
    expect(wallet.startsWith(`${CERT}\n${KEY}\n`)).toBe(true);
    expect(wallet).toContain(rootCertificates[0].trim());
  });

  it('adds a probed chain to the trusted CAs (system roots kept without a CA, replaced by one)', () => {
    const probed = walletFor({ mode: 'skip-verify' }, ['SERVER-CHAIN'])!;
    expect(probed.endsWith('SERVER-CHAIN\n')).toBe(true);
    expect(probed).toContain(rootCertificates[0].trim());
    const withCa = walletFor({ mode: 'skip-verify', ca: CA }, ['SERVER-CHAIN'])!;
    expect(withCa.endsWith(`${CA}\nSERVER-CHAIN\n`)).toBe(true);
    expect(withCa).not.toContain(rootCertificates[0].trim());
    expect(walletFor({ mode: 'true' })).toBeUndefined();
  });

  it('ignores a certificate without its key (and a key without its certificate)', () => {
    expect(walletFor({ mode: 'true', cert: CERT })).toBeUndefined();
    expect(walletFor({ mode: 'true', key: KEY, ca: CA })!.startsWith(throwAwayIdentity().certificatePem.trim())).toBe(true);
  });

  it('accepts modes in any case and rejects unknown ones', () => {
    expect(normalizeSslMode('Skip-Verify')).toBe('skip-verify');
    expect(normalizeSslMode(' VERIFY ')).toBe('verify');
    expect(normalizeSslMode(undefined)).toBeNull();
    expect(() => normalizeSslMode('require')).toThrow(/unsupported Oracle SSL mode "require"/);
  });
});

describe('presented chains', () => {
  it('lists the peer chain leaf first, each certificate once, stopping at a self-signed root', () => {
    const root = { raw: Buffer.from('root'), fingerprint256: 'R' } as Record<string, unknown>;
    root.issuerCertificate = root;
    const leaf = { raw: Buffer.from('leaf'), fingerprint256: 'L', issuerCertificate: root };
    const pems = chainPems(leaf as never);
    expect(pems).toEqual([
      `-----BEGIN CERTIFICATE-----\n${Buffer.from('leaf').toString('base64')}\n-----END CERTIFICATE-----\n`,
      `-----BEGIN CERTIFICATE-----\n${Buffer.from('root').toString('base64')}\n-----END CERTIFICATE-----\n`,
    ]);
    expect(chainPems(undefined)).toEqual([]);
    expect(chainPems({} as never)).toEqual([]);
  });
});
