import { describe, expect, it } from 'vitest';
import { describeError } from './mysql-session.js';

describe('MySQL query error messages', () => {
  it('keeps the server message and its error code, never the SQL mysql2 attaches', () => {
    const error = Object.assign(new Error("Table 'shop.orders' doesn't exist"), {
      code: 'ER_NO_SUCH_TABLE',
      errno: 1146,
      sql: "SELECT `id` FROM `shop`.`orders` WHERE `name` = 'secret filter value'",
    });
    expect(describeError(error)).toBe("Table 'shop.orders' doesn't exist (ER_NO_SUCH_TABLE)");
  });

  it('does not name the login', () => {
    const error = Object.assign(new Error("SELECT command denied to user 'svc_fetch'@'10.0.0.2' for table `shop`.`orders`"), {
      code: 'ER_TABLEACCESS_DENIED_ERROR',
    });
    expect(describeError(error)).toBe('SELECT command denied to user <login> for table `shop`.`orders` (ER_TABLEACCESS_DENIED_ERROR)');
  });

  it('copes with anything thrown', () => {
    expect(describeError('boom')).toBe('unknown error');
    expect(describeError(Object.assign(new Error('x'.repeat(1000)), { code: 'not a code' }))).toHaveLength(300);
  });
});
