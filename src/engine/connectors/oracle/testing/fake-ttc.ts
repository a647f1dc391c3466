import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * The TTC (Two-Task Common) bytes the fake Oracle server writes and reads, as node-oracledb 7
 * thin parses them (lib/thin/protocol/messages/*.js) once the server announces TTC field version
 * 12.1: no token numbers, no 12.2+ column or error fields. Strings are UTF-8 (charset 873).
 */
export const MSG = {
  PROTOCOL: 1,
  DATA_TYPES: 2,
  FUNCTION: 3,
  ERROR: 4,
  ROW_HEADER: 6,
  ROW_DATA: 7,
  PARAMETER: 8,
  STATUS: 9,
  DESCRIBE_INFO: 16,
  PIGGYBACK: 17,
};
export const FUNC = {
  AUTH_PHASE_ONE: 118,
  AUTH_PHASE_TWO: 115,
  EXECUTE: 94,
  REEXECUTE_AND_FETCH: 78,
  REEXECUTE: 4,
  FETCH: 5,
  LOGOFF: 9,
  CLOSE_CURSORS: 105,
};
const FIELD_VERSION_12_1 = 7;
const CHARSET_UTF8 = 873;
const VARCHAR = 1;
/** VARCHAR2 as large as it gets with MAX_STRING_SIZE = EXTENDED: no extra indicator bytes per value. */
const MAX_VARCHAR = 32_767;
const CHUNK = 65_536;

export class TtcWriter {
  private readonly parts: Buffer[] = [];

  u8(n: number): this {
    this.parts.push(Buffer.from([n & 0xff]));
    return this;
  }

  u16be(n: number): this {
    const b = Buffer.alloc(2);
    b.writeUInt16BE(n);
    this.parts.push(b);
    return this;
  }

  u16le(n: number): this {
    const b = Buffer.alloc(2);
    b.writeUInt16LE(n);
    this.parts.push(b);
    return this;
  }

  /** A variable-length unsigned integer (UB2/UB4/UB8): its byte count, then big-endian bytes. */
  ub(n: number): this {
    if (n === 0) return this.u8(0);
    const bytes: number[] = [];
    for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v % 256);
    this.parts.push(Buffer.from([bytes.length, ...bytes]));
    return this;
  }

  raw(bytes: Buffer): this {
    this.parts.push(bytes);
    return this;
  }

  /** Bytes with a one-byte length, or in UB4-prefixed chunks after 0xFE when longer than 252; null as 0. */
  bytes(value: Buffer | null): this {
    if (value === null || value.length === 0) return this.u8(0);
    if (value.length <= 252) return this.u8(value.length).raw(value);
    this.u8(0xfe);
    for (let o = 0; o < value.length; o += CHUNK) {
      const chunk = value.subarray(o, o + CHUNK);
      this.ub(chunk.length).raw(chunk);
    }
    return this.ub(0);
  }

  str(value: string | null): this {
    return this.bytes(value === null ? null : Buffer.from(value, 'utf8'));
  }

  build(): Buffer {
    return Buffer.concat(this.parts);
  }
}

/** The protocol negotiation answer: UTF-8 / AL16UTF16, TTC field version 12.1, 32 KiB strings. */
export function protocolReply(): Buffer {
  const fdo = Buffer.alloc(11);
  fdo.writeUInt16BE(2000, 9); // national character set AL16UTF16
  const compileCaps = Buffer.alloc(8);
  compileCaps[7] = FIELD_VERSION_12_1;
  const runtimeCaps = Buffer.alloc(7);
  runtimeCaps[6] = 0x04; // 32 KiB VARCHAR2
  return new TtcWriter()
    .u8(MSG.PROTOCOL)
    .u8(6)
    .u8(0)
    .raw(Buffer.from('Fake Oracle\0', 'ascii'))
    .u16le(CHARSET_UTF8)
    .u8(1)
    .u16le(0)
    .u16be(fdo.length)
    .raw(fdo)
    .bytes(compileCaps)
    .bytes(runtimeCaps)
    .build();
}

/** The data type negotiation answer: no conversions listed. */
export const dataTypesReply = (): Buffer => new TtcWriter().u8(MSG.DATA_TYPES).u16be(0).build();

export const statusReply = (): Buffer => new TtcWriter().u8(MSG.STATUS).ub(0).ub(0).build();

/** Key/value return parameters, as the authentication phases answer. */
export function parameters(pairs: readonly (readonly [string, string, number?])[]): Buffer {
  const w = new TtcWriter().u8(MSG.PARAMETER).ub(pairs.length);
  for (const [key, value, flag = 0] of pairs) {
    w.ub(Buffer.byteLength(key)).str(key).ub(Buffer.byteLength(value));
    if (value !== '') w.str(value);
    w.ub(flag);
  }
  return w.build();
}

/** The end of a call: its cursor, row count and error (0: none; 1403: no more rows). */
export function errorInfo(info: { cursorId?: number; num?: number; rowCount?: number; message?: string } = {}): Buffer {
  const { cursorId = 0, num = 0, rowCount = 0, message = '' } = info;
  const w = new TtcWriter().u8(MSG.ERROR);
  w.ub(0).ub(0).ub(0).ub(0).ub(0).ub(0); // call status, seq, row, error, array errors
  w.ub(cursorId).u8(0); // cursor id, error position
  w.u8(0).u8(0).u8(0).u8(0).u8(0).u8(0); // sql type, fatal, flags, cursor options, UPI, warning
  w.ub(0).ub(0).u8(0).ub(0).ub(0); // rowid
  w.ub(0).u8(0).u8(0).ub(0).ub(0); // OS error, statement error, call number, padding, iterations
  w.ub(0).ub(0).ub(0).ub(0); // logical rowid, batch errors, offsets, messages
  w.ub(num).ub(rowCount);
  if (num !== 0) w.str(message);
  return w.build();
}

/** Column descriptions: every column a VARCHAR2 (the connector renders by the discovered types). */
export function describeInfo(columns: readonly string[]): Buffer {
  const w = new TtcWriter().u8(MSG.DESCRIBE_INFO).u8(0).ub(MAX_VARCHAR).ub(columns.length);
  if (columns.length > 0) w.u8(0);
  columns.forEach((name, i) => {
    w.u8(VARCHAR).u8(0).u8(0).u8(0).ub(MAX_VARCHAR).ub(0).ub(0).ub(0).ub(0).ub(CHARSET_UTF8).u8(1).ub(MAX_VARCHAR);
    w.u8(1)
      .u8(0)
      .ub(Buffer.byteLength(name))
      .str(name)
      .ub(0)
      .ub(0)
      .ub(i + 1)
      .ub(0);
  });
  return w.ub(0).ub(0).ub(0).ub(0).ub(0).ub(0).build();
}

export function rows(values: readonly (readonly (string | null)[])[]): Buffer {
  if (values.length === 0) return Buffer.alloc(0);
  const w = new TtcWriter().u8(MSG.ROW_HEADER).u8(0).ub(0).ub(0).ub(0).ub(0).ub(0).ub(0);
  for (const row of values) {
    w.u8(MSG.ROW_DATA);
    for (const value of row) w.str(value);
  }
  return w.build();
}

/** Reads a UB2/UB4 at `pos`: [value, position after it]. */
export function readUb(buf: Buffer, pos: number): [number, number] {
  const size = buf[pos];
  return [size === 0 ? 0 : buf.readUIntBE(pos + 1, size), pos + 1 + size];
}

/** The function code of a client message and the position of its arguments, past any close-cursor piggyback. */
export function functionOf(payload: Buffer): { code: number; pos: number } | undefined {
  let pos = 0;
  while (payload[pos] === MSG.PIGGYBACK && payload[pos + 1] === FUNC.CLOSE_CURSORS) {
    let count: number;
    [count, pos] = readUb(payload, pos + 4);
    for (let i = 0; i < count; i++) pos = readUb(payload, pos)[1];
  }
  if (payload[pos] !== MSG.FUNCTION) return undefined;
  return { code: payload[pos + 1], pos: pos + 3 };
}

const EXEC_OPTION_FETCH = 0x40;
const SQL_START = /SELECT|ALTER|WITH|SET TRANSACTION|COMMIT|ROLLBACK/;

/** What a full execute (OALL8) asks: its cursor (0: a new statement), its text, and the rows it fetches at once. */
export function executeArgs(payload: Buffer, pos: number): { cursorId: number; sql: string | undefined; prefetch: number } {
  const [options, afterOptions] = readUb(payload, pos);
  const [cursorId, afterCursor] = readUb(payload, afterOptions);
  const hasSql = payload[afterCursor] === 1;
  const [sqlLength, afterLength] = readUb(payload, afterCursor + 1);
  const [, afterVector] = readUb(payload, afterLength + 1);
  const [iterations] = readUb(payload, afterVector + 3);
  // The text is the only SQL in the message, sent in one piece after the fixed fields.
  const text = payload.toString('latin1');
  const at = hasSql ? text.slice(afterVector).search(SQL_START) : -1;
  const sql = at < 0 ? undefined : payload.subarray(afterVector + at, afterVector + at + sqlLength).toString('utf8');
  return { cursorId, sql, prefetch: options & EXEC_OPTION_FETCH ? iterations : 0 };
}

/** The value of a key the client sent with writeKeyValue (`AUTH_SESSKEY`), as text. */
export function clientValue(payload: Buffer, key: string): string | undefined {
  const at = payload.indexOf(Buffer.from(key, 'ascii'));
  if (at < 0) return undefined;
  const [length, pos] = readUb(payload, at + key.length);
  return length === 0 ? '' : payload.subarray(pos + 1, pos + 1 + payload[pos]).toString('utf8');
}

/**
 * O5LOGON with an 11g verifier, server side: the server's half of the session key encrypted with
 * the password hash, the client's half recovered from its answer, the combined key, and the proof
 * that the server knows the password (`AUTH_SVR_RESPONSE`), which the client checks.
 */
export class O5Logon {
  readonly salt = randomBytes(10);
  private readonly serverKey = randomBytes(48);
  private readonly passwordHash: Buffer;

  constructor(password: string) {
    const sha1 = createHash('sha1').update(Buffer.from(password, 'utf8')).update(this.salt).digest();
    this.passwordHash = Buffer.concat([sha1, Buffer.alloc(4)]);
  }

  /** AUTH_SESSKEY of phase one. */
  encodedServerKey(): string {
    return aes(this.passwordHash, this.serverKey, true).toString('hex').toUpperCase();
  }

  /** AUTH_SVR_RESPONSE of phase two, from the client's AUTH_SESSKEY. */
  serverResponse(encodedClientKey: string): string {
    const clientKey = aes(this.passwordHash, Buffer.from(encodedClientKey, 'hex'), false);
    const mixed = Buffer.alloc(24);
    for (let i = 0; i < 24; i++) mixed[i] = this.serverKey[16 + i] ^ clientKey[16 + i];
    const comboKey = Buffer.concat([md5(mixed.subarray(0, 16)), md5(mixed.subarray(16))]).subarray(0, 24);
    return aes(comboKey, Buffer.concat([randomBytes(16), Buffer.from('SERVER_TO_CLIENT')]), true)
      .toString('hex')
      .toUpperCase();
  }
}

const md5 = (data: Buffer): Buffer => createHash('md5').update(data).digest();

function aes(key: Buffer, data: Buffer, encrypt: boolean): Buffer {
  const iv = Buffer.alloc(16);
  const cipher = encrypt ? createCipheriv('aes-192-cbc', key, iv) : createDecipheriv('aes-192-cbc', key, iv);
  cipher.setAutoPadding(false);
  return Buffer.concat([cipher.update(data), cipher.final()]);
}

/** The verifier type node-oracledb reads from AUTH_VFR_DATA's flag: 11g. */
export const VERIFIER_11G = 0xb152;
