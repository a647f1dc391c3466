import { describe, expect, it } from 'vitest';
import { checkSessionSetup, SESSION_SETUP_SQL } from './postgres-client.js';
import { SessionSetupError } from './postgres-connect-error.js';

const ANSWER = ['UTC', 'ISO, YMD', 'iso_8601', '1', 'hex', 'UTF8', 'UTF8', '4242'];

describe('session setup', () => {
  it('sets every format the encoders rely on, and reads back the server encoding and the backend pid', () => {
    for (const setting of [
      "'TimeZone', 'UTC'",
      "'DateStyle', 'ISO, YMD'",
      "'IntervalStyle', 'iso_8601'",
      "'extra_float_digits', '1'",
      "'bytea_output', 'hex'",
      "'client_encoding', 'UTF8'",
    ]) {
      expect(SESSION_SETUP_SQL).toContain(`set_config(${setting}, false)`);
    }
    expect(checkSessionSetup(ANSWER)).toEqual({ serverEncoding: 'UTF8', backendPid: 4242 });
  });

  it('accepts PostgreSQL spelling the same value its own way', () => {
    expect(checkSessionSetup(['utc', 'ISO,YMD', ...ANSWER.slice(2)]).backendPid).toBe(4242);
  });

  it.each([
    [0, 'Europe/Berlin', 'TimeZone'],
    [1, 'SQL, DMY', 'DateStyle'],
    [2, 'postgres', 'IntervalStyle'],
    [3, '0', 'extra_float_digits'],
    [4, 'escape', 'bytea_output'],
    [5, 'LATIN1', 'client_encoding'],
  ])('refuses a session whose setting %# did not take (%s): its values would come out wrong', (index, answer, name) => {
    const row = [...ANSWER];
    row[index] = answer;
    expect(() => checkSessionSetup(row)).toThrow(SessionSetupError);
    expect(() => checkSessionSetup(row)).toThrow(new RegExp(`did not accept ${name}`));
  });
});
