/** A requested table name split into namespace and name, plus the key its rows appear under. */
export interface TableReference {
  /** As written in the request. */
  readonly requested: string;
  readonly schema: string | null;
  readonly name: string;
  /** `name` in the default schema, `schema.name` otherwise (docs/api.md, "Tables and result keys"). */
  readonly key: string;
}

/**
 * `accounting.invoices` → schema `accounting`; `accounts` and `public.accounts` → the default
 * schema, key `accounts`. Engines without schemas (defaultSchema null) keep the name whole.
 */
export function parseTableReference(
  requested: string,
  defaultSchema: string | null,
  canonical: (name: string) => string = (name) => name,
): TableReference {
  if (defaultSchema === null) {
    const name = canonical(requested);
    return { requested, schema: null, name, key: name };
  }
  const dot = requested.indexOf('.');
  if (dot <= 0 || dot === requested.length - 1) {
    const name = canonical(requested);
    return { requested, schema: defaultSchema, name, key: name };
  }
  const schema = canonical(requested.slice(0, dot));
  const name = canonical(requested.slice(dot + 1));
  return { requested, schema, name, key: schema === defaultSchema ? name : `${schema}.${name}` };
}
