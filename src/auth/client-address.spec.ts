import { describe, expect, it } from 'vitest';
import { clientKeyOf } from './client-address.js';

describe('clientKeyOf', () => {
  it('keys an IPv4 caller by its address, written either way', () => {
    expect(clientKeyOf('203.0.113.7')).toBe('203.0.113.7');
    expect(clientKeyOf('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientKeyOf('::FFFF:cb00:7107')).toBe('203.0.113.7');
  });

  it('keys an IPv6 caller by its /64, however the address is spelled', () => {
    expect(clientKeyOf('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(clientKeyOf('2001:0db8:0001:0002:ffff:eeee:dddd:cccc')).toBe('2001:db8:1:2::/64');
    expect(clientKeyOf('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientKeyOf('::1')).toBe('0:0:0:0::/64');
    expect(clientKeyOf('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(clientKeyOf('64:ff9b::203.0.113.7')).toBe('64:ff9b:0:0::/64');
  });

  it('puts a missing or odd address under one key', () => {
    expect(clientKeyOf(undefined)).toBe('unknown');
    expect(clientKeyOf('')).toBe('unknown');
    expect(clientKeyOf('not-an-address')).toBe('unknown');
  });
});
