import { describe, expect, it } from 'vitest';
import { UnsupportedSslModeError } from '../shared/tls-options.js';
import { normalizeSslMode, tlsOptions } from './mongodb-ssl.js';

const PEM = { ca: 'CA-PEM', cert: 'CERT-PEM', key: 'KEY-PEM' };

describe('MongoDB SSL modes', () => {
  it.each<[string | null | undefined, string]>([
    [null, 'disable'],
    [undefined, 'disable'],
    ['', 'disable'],
    ['  ', 'disable'],
    ['disable', 'disable'],
    ['false', 'false'],
    ['TRUE', 'true'],
    ['enable', 'enable'],
    ['insecure', 'insecure'],
  ])('%j → %s', (mode, normalized) => {
    expect(normalizeSslMode(mode)).toBe(normalized);
  });

  it.each(['require', 'skip-verify', 'verify-full', 'yes'])('rejects %s', (mode) => {
    expect(() => normalizeSslMode(mode)).toThrow(UnsupportedSslModeError);
  });

  it.each([null, '', 'disable', 'false'])('%j: no TLS, even with PEM material on the record', (mode) => {
    expect(tlsOptions({ mode, ...PEM })).toEqual({ tls: false });
  });

  it.each(['true', 'enable'])('%s: TLS with the chain and host name verified against the CA, client certificate sent', (mode) => {
    expect(tlsOptions({ mode, ...PEM })).toEqual({
      tls: true,
      ca: 'CA-PEM',
      cert: 'CERT-PEM',
      key: 'KEY-PEM',
      tlsAllowInvalidCertificates: false,
      tlsAllowInvalidHostnames: false,
    });
  });

  it('true without a CA verifies against the system roots', () => {
    expect(tlsOptions({ mode: 'true' })).toEqual({ tls: true, tlsAllowInvalidCertificates: false, tlsAllowInvalidHostnames: false });
  });

  it('insecure: TLS without certificate or host name checks', () => {
    expect(tlsOptions({ mode: 'insecure', cert: 'C', key: 'K' })).toEqual({
      tls: true,
      cert: 'C',
      key: 'K',
      tlsAllowInvalidCertificates: true,
      tlsAllowInvalidHostnames: true,
    });
  });

  it('refuses half a client certificate', () => {
    expect(() => tlsOptions({ mode: 'true', cert: 'C' })).toThrow('both cert and key');
    expect(() => tlsOptions({ mode: 'true', key: 'K' })).toThrow(UnsupportedSslModeError);
  });
});
