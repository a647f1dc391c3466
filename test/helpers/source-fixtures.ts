/** The sample source database the end-to-end tests extract from. */
export const SOURCE_FIXTURE_SQL = `
  CREATE TABLE public.accounts (
    id bigint PRIMARY KEY,
    email text NOT NULL,
    balance numeric(12, 2) NOT NULL,
    created_at timestamptz NOT NULL
  );
  -- inserted out of key order: results must come back ordered by primary key
  INSERT INTO public.accounts VALUES
    (3, 'cy@example.com', 9999999999.99, '2026-02-01 00:00:00+00'),
    (1, 'ana@example.com', 100.50, '2026-01-02 10:00:00.123456+00'),
    (2, 'bo@example.com', 0.00, '2026-01-03 11:30:00+00');
  CREATE SCHEMA accounting;
  CREATE TABLE accounting.invoices (id int PRIMARY KEY, account_id bigint NOT NULL, amount numeric(12, 2) NOT NULL, due date NOT NULL);
  INSERT INTO accounting.invoices VALUES (11, 3, 7.25, '2026-03-15'), (10, 1, 42.00, '2026-03-01');
  -- same table name in another schema: an unqualified 'accounts' must not read this one
  CREATE TABLE accounting.accounts (id int PRIMARY KEY, label text);
  INSERT INTO accounting.accounts VALUES (99, 'not the public accounts');
  CREATE TABLE public.empty_table (id int PRIMARY KEY, note text);
`;

export const ACCOUNTS_ROWS = [
  { id: 1, email: 'ana@example.com', balance: '100.50', created_at: '2026-01-02T10:00:00.123456Z' },
  { id: 2, email: 'bo@example.com', balance: '0.00', created_at: '2026-01-03T11:30:00Z' },
  { id: 3, email: 'cy@example.com', balance: '9999999999.99', created_at: '2026-02-01T00:00:00Z' },
];

export const INVOICE_ROWS = [
  { id: 10, account_id: 1, amount: '42.00', due: '2026-03-01' },
  { id: 11, account_id: 3, amount: '7.25', due: '2026-03-15' },
];
