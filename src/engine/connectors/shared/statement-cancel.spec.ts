import { describe, expect, it } from 'vitest';
import { cancelFromSecondConnection, cancelOrCut, type CancelConnection } from './statement-cancel.js';

const never = new Promise<never>(() => undefined);

describe('cancelOrCut', () => {
  it('waits for the statement after a cancel that got through, and cuts at once after one that did not', async () => {
    let cuts = 0;
    const cut = () => void cuts++;
    await cancelOrCut(Promise.resolve(true), Promise.reject(new Error('canceling statement')), cut);
    expect(cuts).toBe(0);
    const started = Date.now();
    await cancelOrCut(Promise.resolve(false), never, cut);
    expect(Date.now() - started).toBeLessThan(500);
    expect(cuts).toBe(1);
  });
});

describe('cancelFromSecondConnection', () => {
  const side = (cancel: () => Promise<boolean>, log: string[], open = async () => 'c'): CancelConnection<string> => ({
    open,
    cancel: () => cancel(),
    cut: () => void log.push('cut'),
    end: async (_connection, timeoutMs) => void log.push(`end ${timeoutMs}`),
  });

  it("answers the server's verdict and always ends the connection it opened", async () => {
    const log: string[] = [];
    expect(
      await cancelFromSecondConnection(
        side(async () => true, log),
        50,
      ),
    ).toBe(true);
    expect(
      await cancelFromSecondConnection(
        side(async () => false, log),
        50,
      ),
    ).toBe(false);
    expect(log).toEqual(['end 1000', 'end 1000']);
  });

  it('resolves false, never throws, when the connection fails or the cancel is late (cut)', async () => {
    const log: string[] = [];
    const refused = async (): Promise<string> => {
      throw new Error('refused');
    };
    expect(
      await cancelFromSecondConnection(
        side(async () => true, log, refused),
        50,
      ),
    ).toBe(false);
    expect(
      await cancelFromSecondConnection(
        side(() => never, log),
        20,
      ),
    ).toBe(false);
    expect(log).toEqual(['cut', 'end 1000']);
  });
});
