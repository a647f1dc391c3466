import { createPrivateKey, createPublicKey, X509Certificate } from 'node:crypto';
import { createSecureContext } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { createTlsIdentity, throwAwayIdentity } from './oracle-tls-identity.js';

describe('throw-away TLS client identity', () => {
  it('is a well-formed self-signed certificate that OpenSSL parses and verifies with its own key', () => {
    const now = new Date('2026-06-01T12:00:00Z');
    const identity = createTlsIdentity(now);
    const cert = new X509Certificate(identity.certificatePem);
    expect(cert.subject).toMatch(/^CN=fetcher-oracle-client-[0-9a-f]{12}$/);
    expect(cert.issuer).toBe(cert.subject);
    expect(new Date(cert.validFrom).getTime()).toBeLessThan(now.getTime());
    expect(new Date(cert.validTo).getTime()).toBeGreaterThan(now.getTime() + 9 * 365 * 86_400_000);
    expect(cert.verify(createPublicKey(identity.privateKeyPem))).toBe(true);
    expect(cert.checkPrivateKey(createPrivateKey(identity.privateKeyPem))).toBe(true);
  });

  it('makes a PEM wallet node-oracledb can use as cert, key and CA at once (a CA alone cannot)', () => {
    const other = createTlsIdentity();
    const caOnly = other.certificatePem;
    expect(() => createSecureContext({ cert: caOnly, key: caOnly, ca: caOnly })).toThrow(/DECODER|PEM|key/i);
    const { certificatePem, privateKeyPem } = throwAwayIdentity();
    const wallet = certificatePem + privateKeyPem + caOnly;
    expect(() => createSecureContext({ cert: wallet, key: wallet, ca: wallet })).not.toThrow();
  });

  it('is generated once per process and differs between processes (fresh key)', () => {
    expect(throwAwayIdentity()).toBe(throwAwayIdentity());
    expect(createTlsIdentity().privateKeyPem).not.toBe(createTlsIdentity().privateKeyPem);
  });
});
