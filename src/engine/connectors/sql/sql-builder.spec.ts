import { describe, expect, it } from 'vitest';
import { SqlBuilder } from './sql-builder.js';

class Numbered extends SqlBuilder<unknown> {
  constructor() {
    super((position) => '@' + position);
  }

  result(): [string, unknown[]] {
    return [this.text, this.values];
  }
}

describe('accumulating SQL and its values', () => {
  it('writes each placeholder at its position, appended or returned, and counts the values', () => {
    const sql = new Numbered().append('a = ').bind(1).append(' AND b IN (');
    const inner = [sql.placeholder('x'), sql.placeholder(null)].join(', ');
    sql.append(inner + ')');
    expect(sql.bindCount).toBe(3);
    expect(sql.result()).toEqual(['a = @1 AND b IN (@2, @3)', [1, 'x', null]]);
  });
});
