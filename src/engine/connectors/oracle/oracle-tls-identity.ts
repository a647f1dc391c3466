import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { systemClock } from '../../support/clock.js';

/**
 * A throw-away client identity (P-256 key and self-signed certificate), made once per process.
 *
 * Why: node-oracledb thin mode builds its TLS context from one PEM "wallet" used at the same time
 * as client certificate, private key and trusted CAs (`tls.createSecureContext({cert, key, ca})`
 * with the same text). A wallet holding only the CA certificate a connection record gives
 * (`ssl.ca`) is refused, because it has no private key. Putting this identity in front of the CA
 * makes such a wallet valid: the CA is trusted, and the identity is offered only if the server
 * asks for a client certificate (SSL_CLIENT_AUTHENTICATION), which it then rejects just as it
 * would reject a client without one. Its key never leaves the process, so trusting its
 * certificate as a CA lets nobody sign anything.
 *
 * Node has no X.509 builder, so the certificate is DER-encoded here (RFC 5280, version 1).
 */

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v >>= 8) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

const tlv = (tag: number, content: Buffer): Buffer => Buffer.concat([Buffer.from([tag]), length(content.length), content]);
const sequence = (...items: Buffer[]): Buffer => tlv(0x30, Buffer.concat(items));

function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split('.').map(Number);
  const bytes = [a * 40 + b];
  for (const n of rest) {
    const chunk = [n & 0x7f];
    for (let v = n >> 7; v > 0; v >>= 7) chunk.unshift((v & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return tlv(0x06, Buffer.from(bytes));
}

/** A positive INTEGER from random bytes (leading bit cleared). */
function serial(): Buffer {
  const bytes = randomBytes(16);
  bytes[0] &= 0x7f;
  bytes[0] |= 0x01;
  return tlv(0x02, bytes);
}

/** UTCTime `YYMMDDHHMMSSZ` (valid for years 1950–2049). */
function utcTime(date: Date): Buffer {
  const iso = date.toISOString();
  const text = iso.slice(2, 4) + iso.slice(5, 7) + iso.slice(8, 10) + iso.slice(11, 13) + iso.slice(14, 16) + iso.slice(17, 19) + 'Z';
  return tlv(0x17, Buffer.from(text, 'ascii'));
}

const commonName = (cn: string): Buffer => sequence(tlv(0x31, sequence(oid('2.5.4.3'), tlv(0x0c, Buffer.from(cn, 'utf8')))));

const ECDSA_WITH_SHA256 = sequence(oid('1.2.840.10045.4.3.2'));

export interface TlsIdentity {
  readonly certificatePem: string;
  readonly privateKeyPem: string;
}

/** DER as PEM text with its `label` (`CERTIFICATE`), 64 base64 characters a line. */
export function pemOf(label: string, der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}

/** Makes a new identity; `now` is for tests. Valid from a day before `now` for ten years. */
export function createTlsIdentity(now = systemClock.now()): TlsIdentity {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const name = commonName(`fetcher-oracle-client-${createHash('sha256').update(spki).digest('hex').slice(0, 12)}`);
  const notBefore = new Date(now.getTime() - 86_400_000);
  const notAfter = new Date(Math.min(now.getTime() + 10 * 365 * 86_400_000, Date.UTC(2049, 11, 31)));
  const tbs = sequence(serial(), ECDSA_WITH_SHA256, name, sequence(utcTime(notBefore), utcTime(notAfter)), name, spki);
  // BIT STRING: a leading 0 for "no unused bits", then the DER ECDSA signature.
  const signature = tlv(0x03, Buffer.concat([Buffer.from([0]), sign('sha256', tbs, privateKey)]));
  return {
    certificatePem: pemOf('CERTIFICATE', sequence(tbs, ECDSA_WITH_SHA256, signature)),
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}

let shared: TlsIdentity | undefined;

/** The process-wide throw-away identity (generated on first use: about a millisecond). */
export function throwAwayIdentity(): TlsIdentity {
  shared ??= createTlsIdentity();
  return shared;
}
