import { describe, expect, it } from 'vitest';
import { addressKey } from './ip-address.js';

describe('addressKey', () => {
  it('spells every form of one IPv4 address the same', () => {
    for (const text of ['10.0.0.1', ' 10.0.0.1 ', '::ffff:10.0.0.1', '::FFFF:a00:1', '0:0:0:0:0:ffff:10.0.0.1', '[::ffff:10.0.0.1]']) {
      expect(addressKey(text), text).toBe('10.0.0.1');
    }
  });

  it('spells every form of one IPv6 address the same, zones and brackets left out', () => {
    const key = addressKey('2001:db8::1');
    for (const text of ['2001:DB8::1', '2001:0db8:0000:0000:0000:0000:0000:0001', '[2001:db8::1]', '2001:db8:0:0::1%eth0']) {
      expect(addressKey(text), text).toBe(key);
    }
    expect(addressKey('::1')).toBe('0:0:0:0:0:0:0:1');
  });

  it('keeps different addresses apart, and an IPv4-compatible address apart from the IPv4 it embeds', () => {
    expect(addressKey('10.0.0.1')).not.toBe(addressKey('10.0.0.2'));
    expect(addressKey('::10.0.0.1')).not.toBe('10.0.0.1');
  });

  it('normalises a host name: case and a trailing dot do not matter', () => {
    expect(addressKey('DB.Example.COM.')).toBe('db.example.com');
  });
});
