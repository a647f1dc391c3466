import type { DataSource } from 'typeorm';
import { describe, expect, it } from 'vitest';
import { sqlParameters } from './sql-parameters.js';

const on = (type: string) => ({ options: { type } }) as unknown as DataSource;

describe('sqlParameters', () => {
  it('numbers PostgreSQL placeholders in the order the text binds them', () => {
    const p = sqlParameters(on('postgres'));
    expect(`a = ${p.bind('x')} AND b IN (${p.bind(1)}, ${p.bind(null)})`).toBe('a = $1 AND b IN ($2, $3)');
    expect(p.values).toEqual(['x', 1, null]);
  });

  it('writes positional ? for SQLite, the values in the same order', () => {
    const p = sqlParameters(on('better-sqlite3'));
    expect(`a = ${p.bind('x')} AND b = ${p.bind(2)}`).toBe('a = ? AND b = ?');
    expect(p.values).toEqual(['x', 2]);
  });
});
