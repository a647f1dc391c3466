import { describe, expect, it } from 'vitest';
import { raceDeadline, settlesWithin } from './settle.js';

const never = new Promise<never>(() => undefined);

describe('settlesWithin', () => {
  it('says whether the work settled, either way, in time', async () => {
    expect(await settlesWithin(Promise.resolve(1), 50)).toBe(true);
    expect(await settlesWithin(Promise.reject(new Error('x')), 50)).toBe(true);
    expect(await settlesWithin(never, 20)).toBe(false);
  });
});

describe('raceDeadline', () => {
  it('returns the work, or stops it and rejects at the deadline or on abort', async () => {
    let stopped = 0;
    const stop = () => void stopped++;
    expect(await raceDeadline(Promise.resolve('ok'), 50, undefined, () => new Error('late'), stop)).toBe('ok');
    await expect(raceDeadline(never, 20, undefined, () => new Error('late'), stop)).rejects.toThrow('late');
    const controller = new AbortController();
    const racing = raceDeadline(never, 0, controller.signal, () => new Error('late'), stop);
    controller.abort(new Error('cancelled'));
    await expect(racing).rejects.toThrow('cancelled');
    expect(stopped).toBe(2);
  });
});
