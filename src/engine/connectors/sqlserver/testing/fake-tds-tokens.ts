import type { FakeColumn, FakeColumnType, FakeValue, ServerMessage } from './fake-tds-types.js';

/** The TDS 7.4 bytes the fake server writes and reads: packet types, tokens, values, RPC parameters. */
export const PACKET = { BATCH: 0x01, RPC: 0x03, REPLY: 0x04, ATTENTION: 0x06, LOGIN7: 0x10, PRELOGIN: 0x12 };
export const ENCRYPTION = { OFF: 0, ON: 1, NOT_SUP: 2, REQ: 3 };
export const DONE = { FINAL: 0x00, ERROR: 0x02, COUNT: 0x10, ATTN: 0x20 };
/** SQL_Latin1_General_CP1_CI_AS */
export const COLLATION = Buffer.from([0x09, 0x04, 0xd0, 0x00, 0x34]);
export const MAX_PACKET_DATA = 4096 - 8;

export const u8 = (n: number) => Buffer.from([n]);
export const u16 = (n: number) => Buffer.from([n & 0xff, (n >> 8) & 0xff]);
export const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0);
  return b;
};
export const bVarChar = (s: string) => Buffer.concat([u8(s.length), Buffer.from(s, 'utf16le')]);
export const usVarChar = (s: string) => Buffer.concat([u16(s.length), Buffer.from(s, 'utf16le')]);

export function done(status: number, rowCount = 0): Buffer {
  const b = Buffer.alloc(13);
  b.writeUInt8(0xfd, 0);
  b.writeUInt16LE(status, 1);
  b.writeBigUInt64LE(BigInt(rowCount), 5);
  return b;
}

export function errorToken({ number, message }: ServerMessage): Buffer {
  const body = Buffer.concat([u32(number), u8(1), u8(14), usVarChar(message), bVarChar('fake'), bVarChar(''), u32(1)]);
  return Buffer.concat([u8(0xaa), u16(body.length), body]);
}

export function loginAck(): Buffer {
  const version = Buffer.from([0x74, 0x00, 0x00, 0x04]);
  const body = Buffer.concat([u8(1), version, bVarChar('Fake SQL Server'), Buffer.from([16, 0, 0, 1])]);
  return Buffer.concat([u8(0xad), u16(body.length), body]);
}

/** ENVCHANGE type 20: protocol 0 (TCP), port, server name as US_VARCHAR; no old value. */
export function routingEnvChange(server: string, port: number): Buffer {
  const route = Buffer.concat([u8(0), u16(port), usVarChar(server)]);
  const body = Buffer.concat([u8(20), u16(route.length), route, u16(0)]);
  return Buffer.concat([u8(0xe3), u16(body.length), body]);
}

export function preloginReply(encryption: number): Buffer {
  const version = Buffer.from([16, 0, 0x10, 0x00, 0, 0]);
  const options = 2 * 5 + 1;
  return Buffer.concat([
    Buffer.from([0x00]),
    Buffer.from([0, options, 0, version.length]),
    Buffer.from([0x01]),
    Buffer.from([0, options + version.length, 0, 1]),
    Buffer.from([0xff]),
    version,
    u8(encryption),
  ]);
}

export function typeInfo(type: FakeColumnType): Buffer {
  switch (type) {
    case 'int':
      return Buffer.from([0x26, 4]);
    case 'bit':
      return Buffer.from([0x68, 1]);
    case 'float':
      return Buffer.from([0x6d, 8]);
    case 'varbinary':
      return Buffer.concat([u8(0xa5), u16(8000)]);
    case 'nvarchar':
      return Buffer.concat([u8(0xe7), u16(8000), COLLATION]);
    // (max) types: length 0xFFFF, values as PLP chunks.
    case 'nvarchar(max)':
      return Buffer.concat([u8(0xe7), u16(0xffff), COLLATION]);
    case 'varbinary(max)':
      return Buffer.concat([u8(0xa5), u16(0xffff)]);
  }
}

/** PLP chunk size, as SQL Server sends (max) values: the total length first, then chunks. */
const PLP_CHUNK = 8000;

function plpValue(bytes: Buffer | null): Buffer {
  if (bytes === null) return Buffer.alloc(8, 0xff);
  const total = Buffer.alloc(8);
  total.writeBigUInt64LE(BigInt(bytes.length));
  const parts: Buffer[] = [total];
  for (let o = 0; o < bytes.length; o += PLP_CHUNK) {
    const chunk = bytes.subarray(o, o + PLP_CHUNK);
    parts.push(u32(chunk.length), chunk);
  }
  parts.push(u32(0));
  return Buffer.concat(parts);
}

export function colMetadata(columns: readonly FakeColumn[]): Buffer {
  const parts = columns.map((c) => Buffer.concat([u32(0), u16(0x0001), typeInfo(c.type), bVarChar(c.name)]));
  return Buffer.concat([u8(0x81), u16(columns.length), ...parts]);
}

export function value(type: FakeColumnType, v: FakeValue): Buffer {
  if (type === 'nvarchar(max)' || type === 'varbinary(max)') {
    return plpValue(v === null ? null : Buffer.isBuffer(v) ? v : Buffer.from(String(v), type === 'nvarchar(max)' ? 'utf16le' : 'utf8'));
  }
  if (type === 'nvarchar' || type === 'varbinary') {
    if (v === null) return u16(0xffff);
    const bytes = Buffer.isBuffer(v) ? v : Buffer.from(String(v), type === 'nvarchar' ? 'utf16le' : 'utf8');
    return Buffer.concat([u16(bytes.length), bytes]);
  }
  if (v === null) return u8(0);
  if (type === 'bit') return Buffer.from([1, v ? 1 : 0]);
  const b = Buffer.alloc(type === 'float' ? 9 : 5);
  b.writeUInt8(type === 'float' ? 8 : 4, 0);
  if (type === 'float') b.writeDoubleLE(Number(v), 1);
  else b.writeInt32LE(Number(v), 1);
  return b;
}

export const row = (columns: readonly FakeColumn[], values: readonly FakeValue[]) =>
  Buffer.concat([u8(0xd1), ...columns.map((c, i) => value(c.type, values[i] ?? null))]);

/** The nvarchar parameters of an sp_executesql RPC: the statement, then the declarations. */
export function rpcTexts(payload: Buffer): string[] {
  let o = payload.readUInt32LE(0);
  const nameLength = payload.readUInt16LE(o);
  o += 2 + (nameLength === 0xffff ? 2 : nameLength * 2) + 2;
  const texts: string[] = [];
  while (o < payload.length && texts.length < 2) {
    o += 1 + payload.readUInt8(o) * 2 + 1;
    if (payload.readUInt8(o) !== 0xe7) break;
    const max = payload.readUInt16LE(o + 1);
    o += 1 + 2 + 5;
    if (max === 0xffff) {
      const chunks: Buffer[] = [];
      o += 8;
      for (let n = payload.readUInt32LE(o); n !== 0; n = payload.readUInt32LE(o)) {
        chunks.push(payload.subarray(o + 4, o + 4 + n));
        o += 4 + n;
      }
      o += 4;
      texts.push(Buffer.concat(chunks).toString('utf16le'));
    } else {
      const length = payload.readUInt16LE(o);
      texts.push(payload.subarray(o + 2, o + 2 + length).toString('utf16le'));
      o += 2 + length;
    }
  }
  return texts;
}
