import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FET_CATALOGUE } from '../../engine/errors/fet-code.js';

/** `| `FET-xxxx` | status | title | when |` rows of docs/api.md's catalogue. */
function documentedCodes(): Map<string, { status: number; title: string }> {
  const page = readFileSync(new URL('../../../docs/api.md', import.meta.url), 'utf8');
  const catalogue = page.slice(page.indexOf('### The FET catalogue'));
  const rows = [...catalogue.matchAll(/^\| `(FET-\d{4})` \| (\d{3}) \| ([^|]+?) \|/gm)];
  return new Map(rows.map(([, code, status, title]) => [code, { status: Number(status), title }]));
}

describe('docs/api.md, "The FET catalogue"', () => {
  it('lists every code of fet-code.ts with its status and title, and no other', () => {
    const documented = documentedCodes();
    expect([...documented.keys()].sort()).toEqual(Object.keys(FET_CATALOGUE).sort());
    for (const [code, info] of Object.entries(FET_CATALOGUE)) expect(documented.get(code), code).toEqual(info);
  });
});
