import { describe, expect, it } from 'vitest';
import { connectWithin, raceDeadline, settleOrCut, settlesWithin } from './settle.js';

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

describe('connectWithin', () => {
  it('returns the connection, or abandons the attempt and rejects with its failure, a timeout or the abort reason', async () => {
    let abandoned = 0;
    const abandon = () => void abandoned++;
    expect(await connectWithin(Promise.resolve('connected'), 50, undefined, abandon)).toBe('connected');
    await expect(connectWithin(Promise.reject(new Error('refused')), 50, undefined, abandon)).rejects.toThrow('refused');
    await expect(connectWithin(never, 20, undefined, abandon)).rejects.toMatchObject({ code: 'FETCHER_CONNECT_TIMEOUT' });
    const controller = new AbortController();
    const connecting = connectWithin(never, 0, controller.signal, abandon);
    controller.abort(new Error('cancelled'));
    await expect(connecting).rejects.toThrow('cancelled');
    expect(abandoned).toBe(3);
  });
});

describe('settleOrCut', () => {
  it('cuts only what has not settled in time', async () => {
    let cuts = 0;
    const cut = () => void cuts++;
    await settleOrCut(Promise.reject(new Error('x')), 50, cut);
    expect(cuts).toBe(0);
    await settleOrCut(never, 20, cut);
    expect(cuts).toBe(1);
  });
});
