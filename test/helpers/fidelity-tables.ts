/**
 * The fidelity tables: one row per extreme of every type an engine maps (docs/value-mapping.md),
 * shared by the connector suites (JSON) and the format suites (NDJSON, CSV, Parquet) so every
 * format is proven on the same values.
 */

/** Quotes, a backslash, a line break, a tab, a control character, an astral character and accents. */
export const FIDELITY_TEXT = 'He said "hi" \\ back\nnew\tline \u0001 😀 ção ü';

/** PostgreSQL: table `fidelity` (and the enum `mood`, the domain `amount`); `$txt$` rows hold FIDELITY_TEXT. */
export const PG_FIDELITY_SQL = String.raw`
  CREATE TYPE mood AS ENUM ('happy', 'sad');
  CREATE DOMAIN amount AS numeric(12, 2) CHECK (VALUE >= 0);
  CREATE TABLE fidelity (
    id int PRIMARY KEY,
    i2 int2, i4 int4, i8 int8,
    num numeric(38, 10), cash money, amt amount,
    f4 float4, f8 float8,
    flag bool, d date, ts timestamp(6), tstz timestamptz, t time, ttz timetz, iv interval,
    u uuid, j json, jb jsonb, bin bytea,
    ints int[], texts text[], nums numeric[], grid int[][], tstzs timestamptz[], flags bool[], jbs jsonb[],
    txt text, fixed char(5), m mood, addr inet
  );
  INSERT INTO fidelity VALUES (
    1, 32767, -2147483648, 9007199254740993,
    '1234567890123456789012345678.0123456789', '12.50', '100.50',
    1.5, 0.1,
    true, '2024-02-29', '2024-01-15 10:20:30.123456', '2024-01-15 10:20:30.123456+02', '23:59:59.999999',
    '10:20:30.5+05:30', '1 year 2 months 3 days 04:05:06',
    'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
    E'{ "big": 12345678901234567890, "s": "a b" ,\n "n":[1, 2] }',
    E'{ "big": 12345678901234567890, "s": "a b" ,\n "n":[1, 2] }',
    '\x00ff10',
    '{1,NULL,3}', ARRAY['a,b', 'c"d', NULL, 'NULL', ''], '{1.50,NULL,NaN}', '{{1,NULL},{3,4}}',
    ARRAY['2024-01-15 10:20:30+00'::timestamptz, NULL], '{t,f,NULL}', ARRAY['{"k": [1, 2]}'::jsonb],
    $txt$${FIDELITY_TEXT}$txt$, 'ab', 'happy', '192.168.0.1/24'
  );
  INSERT INTO fidelity (id, i8, num, f4, f8, flag, d, ts, tstz, ttz, iv)
    VALUES (2, -9223372036854775808, 'NaN', 'NaN', 'Infinity', false, 'infinity', '-infinity', 'infinity', '08:00:00+02', '-1 day');
  INSERT INTO fidelity (id, f4, f8) VALUES (3, 3.4028235e38, '-Infinity');
  INSERT INTO fidelity (id, f8) VALUES (4, 1e300);
`;

/** MariaDB: table `fidelity`. */
// sql_mode '' so the zero dates can be stored; the TIMESTAMP is written at +02:00 and must come
// back in UTC.
export const MARIADB_FIDELITY_SQL = String.raw`
  SET SESSION sql_mode = '';
  SET SESSION time_zone = '+02:00';
  CREATE TABLE fidelity (
    id INT PRIMARY KEY,
    ti TINYINT, tiu TINYINT UNSIGNED, si SMALLINT, mi MEDIUMINT UNSIGNED, i INT, iu INT UNSIGNED,
    bi BIGINT, bu BIGINT UNSIGNED, yr YEAR,
    flag TINYINT(1), flag2 BOOLEAN,
    num DECIMAL(38,10), price NUMERIC(10,2),
    d DOUBLE, f FLOAT,
    dt DATE, dtm DATETIME(6), dtm0 DATETIME, ts TIMESTAMP(6) NULL, t TIME(6),
    j JSON, bin BLOB, vb VARBINARY(16), fixed BINARY(4),
    b1 BIT(1), b8 BIT(8), b64 BIT(64),
    e ENUM('happy', 'sad'), st SET('a', 'b', 'c'),
    txt TEXT, vc VARCHAR(100), ch CHAR(5),
    u UUID, g POINT
  );
  INSERT INTO fidelity VALUES (
    1, -128, 255, -32768, 16777215, -2147483648, 4294967295,
    9223372036854775807, 18446744073709551615, 2024,
    1, 0,
    '1234567890123456789012345678.0123456789', 100.50,
    0.1, 0.1,
    '2024-02-29', '2024-01-15 10:20:30.123456', '2024-01-15 10:20:30', '2024-01-15 10:20:30.123456', '-838:59:59.000000',
    '{ "big": 12345678901234567890, "s": "a b" ,\n "n":[1, 2.50] }', x'00ff10', x'ff00', x'01',
    b'1', b'10000001', b'1111111111111111111111111111111111111111111111111111111111111111',
    'happy', 'c,a',
    NULL, 'plain', 'ab',
    '123e4567-e89b-12d3-a456-426655440000', POINT(1, 2)
  );
  INSERT INTO fidelity (id, bi, d, f, flag, flag2, b1, t, price)
    VALUES (2, -9223372036854775808, 1e300, 1234567, 0, 5, b'0', '23:59:59.999999', -0.05);
  INSERT INTO fidelity (id, d, f, dt, dtm, ts)
    VALUES (3, -2.5e-7, 3.40282e38, '0000-00-00', '0000-00-00 00:00:00', '0000-00-00 00:00:00');
  SET SESSION sql_mode = DEFAULT, time_zone = DEFAULT;
`;

/** The columns of MariaDB's `fidelity`, in table order. */
export const MARIADB_FIDELITY_COLUMNS = [
  'id',
  'ti',
  'tiu',
  'si',
  'mi',
  'i',
  'iu',
  'bi',
  'bu',
  'yr',
  'flag',
  'flag2',
  'num',
  'price',
  'd',
  'f',
  'dt',
  'dtm',
  'dtm0',
  'ts',
  't',
  'j',
  'bin',
  'vb',
  'fixed',
  'b1',
  'b8',
  'b64',
  'e',
  'st',
  'txt',
  'vc',
  'ch',
  'u',
  'g',
];
