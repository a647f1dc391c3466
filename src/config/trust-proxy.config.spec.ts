import { describe, expect, it } from 'vitest';
import { parseTrustProxy } from './trust-proxy.config.js';

describe('parseTrustProxy (TRUST_PROXY)', () => {
  it('trusts no proxy unless told', () => {
    expect(parseTrustProxy(undefined)).toEqual({ trustProxy: false });
    expect(parseTrustProxy('false')).toEqual({ trustProxy: false });
  });

  it('takes a hop count or a list of proxy addresses and ranges', () => {
    expect(parseTrustProxy('1')).toEqual({ trustProxy: 1 });
    expect(parseTrustProxy('loopback, 10.0.0.0/8, fd00::/8, 192.0.2.10')).toEqual({
      trustProxy: ['loopback', '10.0.0.0/8', 'fd00::/8', '192.0.2.10'],
    });
  });

  it.each(['true', '0', '11', '10.0.0.0/33', 'proxy.example.com', 'loopback,,'])('refuses %j, naming the variable', (value) => {
    expect(parseTrustProxy(value).problem).toMatch(/^TRUST_PROXY: /);
  });
});
