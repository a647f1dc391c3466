import { randomBytes } from 'node:crypto';
import fc from 'fast-check';

/**
 * The generators of the HTTP fuzz suite (fuzz.e2e.spec.ts): hostile keys, values and bodies, bodies
 * a mutation away from valid, path parameters, query strings and header sets.
 */

export const PRODUCT = 'fuzz';
export const SOURCE = 'pg_fuzz';
export const FUZZ_PASSWORD = `fuzz-pw-${randomBytes(8).toString('hex')}`;

export const HOSTILE_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
  '__defineGetter__',
  'then',
  'length',
  '0',
  '',
  ' ',
  '*',
  '.',
  'public.tiny',
  'a.b.c',
  '$where',
  '$gt',
  'source',
  'metadata',
  'dataRequest',
  'mappedFields',
  'filters',
  'limits',
  'in',
  'nin',
  'eq',
  'between',
  'like',
  'ssl',
  'password',
  'configName',
  SOURCE,
  'tiny',
  'id',
  'label',
  'TINY',
  'Ünïcödé',
  '\u0000',
  'x'.repeat(300),
];
export const HOSTILE_STRINGS = [
  '',
  ' ',
  '*',
  '%',
  '%ZZ',
  "'; DROP TABLE tiny; --",
  '" OR 1=1 --',
  '\u0000',
  '\ud800',
  '\u202e',
  '../../etc/passwd',
  '${jndi:ldap://x}',
  '{{7*7}}',
  '<script>alert(1)</script>',
  'null',
  'undefined',
  'NaN',
  '1e309',
  '2026-02-30',
  '2026-01-01',
  'POSTGRESQL',
  'fuzz',
  'FUZZ',
  SOURCE,
  'x'.repeat(5_000),
];

export const hostileKey = fc.oneof(
  fc.constantFrom(...HOSTILE_KEYS),
  fc.string({ maxLength: 10 }),
  fc.string({ unit: 'binary', maxLength: 6 }),
);
export const hostileScalar = fc.oneof(
  fc.constantFrom<unknown>(...HOSTILE_STRINGS, 0, -1, 1.5, -0, 1e308, -1e308, 2 ** 53 + 1, 65_536, true, false, null),
  fc.string({ maxLength: 20 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

/** An object whose members are defined, never assigned, so `__proto__` stays an own member. */
export function objectOf(entries: ReadonlyArray<readonly [string, unknown]>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of entries) Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  return out;
}

export const { value: hostileValue } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', maxDepth: 5 },
    hostileScalar,
    fc.array(tie('value'), { maxLength: 5 }),
    fc.array(fc.tuple(hostileKey, tie('value')), { maxLength: 5 }).map(objectOf),
  ),
}));

/** Nesting built as text, far past what recursive code survives. */
export const deepText = fc
  .record({
    levels: fc.oneof(fc.integer({ min: 30, max: 36 }), fc.integer({ min: 100, max: 5_000 }), fc.constantFrom(20_000, 100_000)),
    shape: fc.constantFrom('object', 'array', 'mixed'),
    key: fc.constantFrom('a', '__proto__', 'constructor', 'mappedFields'),
  })
  .map(({ levels, shape, key }) => {
    const open = shape === 'object' ? `{${JSON.stringify(key)}:` : shape === 'array' ? '[' : `[{${JSON.stringify(key)}:`;
    const close = shape === 'object' ? '}' : shape === 'array' ? ']' : '}]';
    return `${open.repeat(levels)}1${close.repeat(levels)}`;
  });
export const hugeArrayText = fc
  .record({
    length: fc.constantFrom(10_000, 10_001, 65_535, 65_536, 70_000, 150_000),
    of: fc.constantFrom('number', 'string', 'null', 'object'),
  })
  .map(({ length, of }) => {
    const item = (i: number) => (of === 'number' ? String(i) : of === 'string' ? `"v${i}"` : of === 'null' ? 'null' : '{}');
    return `[${Array.from({ length }, (_, i) => item(i)).join(',')}]`;
  });
export const wideObjectText = fc
  .constantFrom(999, 1_000, 1_001, 5_000, 20_000)
  .map((members) => `{${Array.from({ length: members }, (_, i) => `"k${i}":${i}`).join(',')}}`);
export const bigText = fc.oneof(deepText, hugeArrayText, wideObjectText);

/** The shapes the request language expects, each with a slot for something hostile. */
export const SKELETONS = [
  (x: string) => `{"metadata":{"source":"${PRODUCT}"},"dataRequest":${x}}`,
  (x: string) => `{"metadata":${x},"dataRequest":{"mappedFields":{"${SOURCE}":{"tiny":["id"]}}}}`,
  (x: string) => `{"metadata":{"source":"${PRODUCT}"},"dataRequest":{"mappedFields":${x}}}`,
  (x: string) => `{"metadata":{"source":"${PRODUCT}"},"dataRequest":{"mappedFields":{"${SOURCE}":${x}}}}`,
  (x: string) => `{"metadata":{"source":"${PRODUCT}"},"dataRequest":{"mappedFields":{"${SOURCE}":{"tiny":["id"]}},"filters":${x}}}`,
  (x: string) =>
    `{"metadata":{"source":"${PRODUCT}"},"dataRequest":{"mappedFields":{"${SOURCE}":{"tiny":["id"]}},"filters":{"${SOURCE}":{"tiny":{"id":{"in":${x}}}}}}}`,
  (x: string) => `{"metadata":{"source":"${PRODUCT}"},"dataRequest":{"mappedFields":{"${SOURCE}":{"tiny":["id"]}},"limits":${x}}}`,
  (x: string) =>
    `{"configName":"fz_big","type":"POSTGRESQL","host":"192.0.2.1","port":5432,"databaseName":"d","userName":"u","password":"p","ssl":${x},"metadata":${x}}`,
  (x: string) => `{"productName":"${PRODUCT}","name":${x}}`,
  (x: string) => x,
];
export const RAW_TEXTS = [
  '',
  '{',
  '{"a":',
  'null',
  '[]',
  '[[]]',
  '"x"',
  '3',
  'true',
  '{"a":1}{"b":2}',
  '\ufeff{}',
  '{"a":1,}',
  'NaN',
  '{"a":01}',
  '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
  '{"a":"\\ud800"}',
];

export const anyBody: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: hostileValue.map((value) => JSON.stringify(value) ?? 'null'), weight: 4 },
  {
    arbitrary: fc.tuple(fc.constantFrom(...SKELETONS), hostileValue).map(([skeleton, value]) => skeleton(JSON.stringify(value) ?? 'null')),
    weight: 4,
  },
  { arbitrary: fc.tuple(fc.constantFrom(...SKELETONS), bigText).map(([skeleton, text]) => skeleton(text)), weight: 1 },
  { arbitrary: fc.oneof(fc.constantFrom(...RAW_TEXTS), fc.string({ maxLength: 40 })), weight: 1 },
);

export type Mutation = {
  readonly op: 'replace' | 'delete' | 'add' | 'wrap' | 'rename' | 'nest';
  readonly at: number;
  readonly key: string;
  readonly value: unknown;
};
export const mutation: fc.Arbitrary<Mutation> = fc.record({
  op: fc.constantFrom('replace', 'delete', 'add', 'wrap', 'rename', 'nest'),
  at: fc.nat(),
  key: hostileKey,
  value: hostileValue,
});

/** Every [container, key] of a JSON value, breadth first (the value is small). */
export function slotsOf(root: Record<string, unknown>): Array<readonly [Record<string, unknown> | unknown[], string]> {
  const slots: Array<readonly [Record<string, unknown> | unknown[], string]> = [];
  const queue: unknown[] = [root];
  for (let index = 0; index < queue.length; index += 1) {
    const container = queue[index];
    if (container === null || typeof container !== 'object') continue;
    for (const key of Object.keys(container)) {
      slots.push([container as Record<string, unknown>, key]);
      queue.push((container as Record<string, unknown>)[key]);
    }
  }
  return slots;
}

/** A valid body with a few of its members replaced, removed, renamed, wrapped or nested. */
export function mutated(base: Record<string, unknown>, mutations: readonly Mutation[]): string {
  const root = structuredClone(base);
  for (const { op, at, key, value } of mutations) {
    const slots = slotsOf(root);
    if (slots.length === 0) break;
    const [container, slot] = slots[at % slots.length];
    const target = container as Record<string, unknown>;
    const current = target[slot];
    const define = (name: string, to: unknown) =>
      Object.defineProperty(target, name, { value: to, enumerable: true, writable: true, configurable: true });
    if (op === 'replace') define(slot, value);
    else if (op === 'delete') delete target[slot];
    else if (op === 'wrap') define(slot, [current]);
    else if (op === 'nest')
      define(slot, JSON.parse(`${'{"n":'.repeat(at % 40)}${JSON.stringify(current) ?? 'null'}${'}'.repeat(at % 40)}`));
    else if (op === 'rename' && !Array.isArray(container)) {
      delete target[slot];
      define(key, current);
    } else if (current !== null && typeof current === 'object' && !Array.isArray(current)) {
      Object.defineProperty(current, key, { value, enumerable: true, writable: true, configurable: true });
    } else {
      define(slot, value);
    }
  }
  return JSON.stringify(root);
}

export const nearValid = (base: (n: number) => Record<string, unknown>) =>
  fc.tuple(fc.nat(), fc.array(mutation, { minLength: 1, maxLength: 3 })).map(([n, mutations]) => mutated(base(n), mutations));

export const validJob = (n: number) => ({
  metadata: { source: PRODUCT, correlationId: `fuzz-${n}` },
  dataRequest: {
    mappedFields: { [SOURCE]: { tiny: ['id', 'label'] } },
    filters: { [SOURCE]: { tiny: { id: { in: [1, 2, 3] }, label: { like: ['a%'] } } } },
    limits: { timeoutMs: 5_000, maxResultBytes: 100_000 },
  },
});
export const validConnection = (n: number) => ({
  configName: `fz_${n}`,
  type: 'POSTGRESQL',
  host: `db${n}.fuzz.invalid`,
  port: 5432,
  databaseName: 'd',
  userName: 'u',
  password: FUZZ_PASSWORD,
  ssl: { mode: 'require' },
  metadata: { team: 'x' },
});
export const validSchemaCheck = () => ({ mappedFields: { [SOURCE]: { tiny: ['id', 'label'] } } });
export const validApiKey = (n: number) => ({ productName: PRODUCT, name: `fuzz key ${n}` });

/** encodeURIComponent throws on a lone surrogate; a client could not send one anyway. */
export const wellFormed = (text: string) =>
  text.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
export const encoded = (text: string) => encodeURIComponent(wellFormed(text));
/** URL-safe junk: bytes a client may send raw (0x21-0xff, no '/', '?', '#'). */
export const rawUrlJunk = fc
  .string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 12 })
  .map((s) => s.replace(/[/?#]/g, '%'));

export const pathParam = (realIds: readonly string[], pool: readonly string[] = []) =>
  fc.oneof(
    fc.uuid(),
    // Ids of jobs and keys this run created: their stored, hostile-looking contents are read back.
    fc.nat().map((index) => pool[index % Math.max(1, pool.length)] ?? realIds[0]),
    fc.uuid().map((id) => id.toUpperCase()),
    fc.constantFrom(...realIds),
    fc.constantFrom(
      'null',
      'undefined',
      '..',
      '.',
      '%ZZ',
      '%',
      '%00',
      '%2F',
      '%2e%2e',
      '%C0%AF',
      '0',
      '-1',
      '{id}',
      '00000000-0000-0000-0000-000000000000',
    ),
    fc.constantFrom(1_000, 16_000, 17_000, 40_000).map((n) => 'x'.repeat(n)),
    fc.uuid().map((id) => `${id}x`),
    fc.string({ maxLength: 40 }).map(encoded),
    fc.string({ unit: 'binary', maxLength: 20 }).map(encoded),
    rawUrlJunk,
  );

export const QUERY_KEYS = [
  'page',
  'limit',
  'sortOrder',
  'type',
  'host',
  'databaseName',
  'startDate',
  'endDate',
  'productName',
  'metadata.team',
  'metadata.__proto__',
  'metadata.constructor',
  'metadata.',
  'metadata.x.y',
  'page[]',
  'limit[0]',
  'a[b][c]',
  '__proto__',
  '__proto__[polluted]',
  'constructor[prototype][x]',
  '',
];
export const QUERY_VALUES = [
  '1',
  '0',
  '-1',
  '01',
  '1.5',
  'abc',
  '1e3',
  '100',
  '101',
  '1000000',
  '1000001',
  '99999999999999999999',
  '9007199254740993',
  'asc',
  'DESC',
  'POSTGRESQL',
  'mysql',
  '2026-02-30',
  '2026-01-01',
  '2025-12-31',
  '',
];
export const queryPart = fc.oneof(
  fc.constantFrom(...QUERY_KEYS).map(encodeURIComponent),
  fc.string({ maxLength: 12 }).map(encoded),
  rawUrlJunk,
);
export const queryValue = fc.oneof(
  fc.constantFrom(...QUERY_VALUES).map(encodeURIComponent),
  fc.string({ maxLength: 20 }).map(encoded),
  rawUrlJunk,
  fc.constantFrom(2_000, 12_000).map((n) => 'x'.repeat(n)),
);
export const queryString = fc
  .array(fc.tuple(queryPart, fc.option(queryValue, { nil: undefined })), { maxLength: 6 })
  .chain((pairs) => fc.tuple(fc.constant(pairs), fc.nat({ max: 3 })))
  .map(([pairs, repeats]) => {
    const all = [...pairs, ...pairs.slice(0, repeats)];
    return all.map(([key, value]) => (value === undefined ? key : `${key}=${value}`)).join('&');
  });

/** Header values a client can send: tab, visible ASCII, space and Latin-1 (Node refuses the rest). */
export const headerText = (maxLength: number) =>
  fc.string({
    unit: fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0x80, max: 0xff })).map((c) => String.fromCharCode(c)),
    maxLength,
  });
export const headerSets = (credentials: readonly string[]) =>
  fc.record(
    {
      product: fc.oneof(
        fc.constantFrom(PRODUCT, 'FUZZ', ' fuzz ', '', ' ', 'other', 'fuzz, other', 'fuzz;other', 'füzz', 'a'.repeat(101), 'a'.repeat(100)),
        headerText(30),
        fc.constantFrom(200, 9_000, 17_000).map((n) => 'p'.repeat(n)),
        fc.array(fc.constantFrom(PRODUCT, 'other', ''), { minLength: 2, maxLength: 3 }),
      ),
      authorization: fc.oneof(
        fc.constantFrom(
          '',
          'Bearer',
          'Bearer ',
          'Bearer  ',
          'bearer x',
          'Basic dXNlcjpwYXNz',
          'Bearer a b',
          'Bearer fet_x',
          'Bearer a.b.c',
          'Bearer eyJhbGciOiJub25lIn0.e30.',
        ),
        headerText(40).map((text) => `Bearer ${text}`),
        headerText(40),
        fc.constantFrom(16_385, 15_000).map((n) => `Bearer ${'k'.repeat(n)}`),
        ...credentials.flatMap((key) => [
          fc.constant(`Bearer ${key}`),
          fc.constant(`Bearer ${key}x`),
          fc.constant(`Bearer ${key.toUpperCase()}`),
          fc.constant(`bearer   ${key}  `),
        ]),
      ),
      contentType: fc.constantFrom(
        'application/json',
        'application/json; charset=utf-16',
        'application/json; charset=latin1',
        'application/json; charset=',
        'application/merge-patch+json',
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        '*/*',
        'application/json, text/plain',
      ),
      contentEncoding: fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'x-bogus', 'gzip, gzip'),
      accept: fc.constantFrom('application/json', 'text/html', '*/*', 'application/xml', ''),
      extraName: fc.stringMatching(/^X-[A-Za-z0-9-]{1,20}$/),
      extraValue: headerText(50),
    },
    { requiredKeys: [] },
  );
