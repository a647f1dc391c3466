import { describe, expect, it } from 'vitest';
import { parseTableReference } from './table-reference.js';

describe('parseTableReference', () => {
  it('reads unqualified names from the default schema', () => {
    expect(parseTableReference('accounts', 'public')).toMatchObject({ schema: 'public', name: 'accounts', key: 'accounts' });
  });

  it('drops the default-schema prefix from the result key', () => {
    expect(parseTableReference('public.accounts', 'public')).toMatchObject({ schema: 'public', name: 'accounts', key: 'accounts' });
  });

  it('keeps other schemas in the key', () => {
    expect(parseTableReference('accounting.invoices', 'public')).toMatchObject({
      schema: 'accounting',
      name: 'invoices',
      key: 'accounting.invoices',
    });
  });

  it('is case-sensitive about schema names', () => {
    expect(parseTableReference('Public.accounts', 'public').key).toBe('Public.accounts');
  });

  it('keeps the whole name on engines without schemas', () => {
    expect(parseTableReference('events.2026', null)).toMatchObject({ schema: null, name: 'events.2026', key: 'events.2026' });
  });
});

describe('parseTableReference with a folding engine (Oracle)', () => {
  const upper = (name: string) => name.toUpperCase();

  it('folds owner and table, and drops the login owner from the key', () => {
    expect(parseTableReference('accounts', 'APP', upper)).toMatchObject({ schema: 'APP', name: 'ACCOUNTS', key: 'ACCOUNTS' });
    expect(parseTableReference('app.accounts', 'APP', upper)).toMatchObject({ schema: 'APP', key: 'ACCOUNTS' });
    expect(parseTableReference('hr.employees', 'APP', upper)).toMatchObject({ schema: 'HR', name: 'EMPLOYEES', key: 'HR.EMPLOYEES' });
  });
});
