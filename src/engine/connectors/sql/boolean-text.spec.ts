import { describe, expect, it } from 'vitest';
import { readBooleanText } from './boolean-text.js';

describe('boolean texts', () => {
  it.each([
    ['true', true],
    [' YES ', true],
    ['t', true],
    ['On', true],
    ['1', true],
    ['y', true],
    ['false', false],
    ['f', false],
    ['No', false],
    ['off', false],
    ['0', false],
    ['n', false],
  ])('reads %j as %s, as PostgreSQL does', (text, flag) => {
    expect(readBooleanText(text)).toBe(flag);
  });

  it.each(['', 'yess', '2', 'tru', 'nil'])('reads %j as no boolean', (text) => {
    expect(readBooleanText(text)).toBeUndefined();
  });
});
