import { connect, Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runInEgressScope } from './egress-scope.js';
import { PolicyOverrideGuard } from './testing/policy-override-guard.js';
import { startCountingListener, type CountingListener } from './testing/counting-listener.js';

/**
 * The hook used for node-oracledb: sockets connected inside a scope are checked as they dial. A
 * refused target must receive no TCP connection at all, and nothing may crash the process, even a
 * socket nobody listens to.
 */
describe('egress scope', () => {
  let allowed: CountingListener;
  let refused: CountingListener;
  const names: Record<string, string[]> = {};
  const guard = new PolicyOverrideGuard(['127.0.0.1'], async (host) => names[host] ?? []);
  const egress = () => guard.egressFor({ host: 'db.example.test', address: '127.0.0.1', family: 4 }, 'ora');

  beforeAll(async () => {
    allowed = await startCountingListener('127.0.0.1');
    refused = await startCountingListener('127.0.0.5');
    names['redirect-loopback.example.test'] = ['127.0.0.5'];
    names['redirect-allowed.example.test'] = ['127.0.0.1'];
  });
  afterAll(async () => Promise.all([allowed?.close(), refused?.close()]));

  /** Resolves with the socket's error, or undefined once it connected. */
  const outcome = (socket: Socket): Promise<Error | undefined> =>
    new Promise((resolve) => {
      socket.once('connect', () => {
        socket.destroy();
        resolve(undefined);
      });
      socket.once('error', (error) => resolve(error));
    });

  const settle = () => new Promise((resolve) => setTimeout(resolve, 100));

  it('dials an allowed IP as usual', async () => {
    const before = allowed.connections;
    const error = await runInEgressScope(egress(), async () => outcome(connect(allowed.port, '127.0.0.1')));
    expect(error).toBeUndefined();
    await settle();
    expect(allowed.connections).toBe(before + 1);
  });

  it('never dials a refused IP, in any call form, and reports FET-0414', async () => {
    const scoped = egress();
    const errors = await runInEgressScope(scoped, async () =>
      Promise.all([
        outcome(connect(refused.port, '127.0.0.5')),
        outcome(connect({ port: refused.port, host: '127.0.0.5' })),
        // A port given as text, which node accepts though its types do not.
        outcome((connect as (...args: unknown[]) => Socket)(String(refused.port), '127.0.0.5')),
      ]),
    );
    for (const error of errors) expect(error).toMatchObject({ code: 'FET-0414' });
    expect(scoped.failure).toMatchObject({ code: 'FET-0414', message: expect.stringContaining('"ora"') });
    await settle();
    expect(refused.connections).toBe(0);
  });

  it('checks sockets connected without net.connect too: new Socket().connect() and tls.connect', async () => {
    const errors = await runInEgressScope(egress(), async () =>
      Promise.all([
        outcome(new Socket().connect(refused.port, '127.0.0.5')),
        outcome(new Socket().connect({ port: refused.port, host: 'redirect-loopback.example.test' })),
        outcome(tlsConnect({ port: refused.port, host: '127.0.0.5' })),
        outcome(tlsConnect({ port: refused.port, host: 'redirect-loopback.example.test', servername: 'x.example.test' })),
      ]),
    );
    for (const error of errors) expect(error).toMatchObject({ code: 'FET-0414' });
    await settle();
    expect(refused.connections).toBe(0);
  });

  it('leaves the options object a caller gave as it was', async () => {
    const options = { port: allowed.port, host: 'redirect-allowed.example.test' };
    const error = await runInEgressScope(egress(), async () => outcome(new Socket().connect(options)));
    expect(error).toBeUndefined();
    expect(options).toEqual({ port: allowed.port, host: 'redirect-allowed.example.test' });
  });

  it('resolves a name through the policy: a name that leads to a refused address is not dialled', async () => {
    const [bad, good] = await runInEgressScope(egress(), async () =>
      Promise.all([
        outcome(connect(refused.port, 'redirect-loopback.example.test')),
        outcome(connect(allowed.port, 'redirect-allowed.example.test')),
      ]),
    );
    expect(bad).toMatchObject({ code: 'FET-0414' });
    expect(good).toBeUndefined();
    await settle();
    expect(refused.connections).toBe(0);
  });

  it('keeps guarding work the scope started later (timers, promise chains)', async () => {
    const error = await runInEgressScope(egress(), async () => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      return new Promise<Error | undefined>((resolve) => setImmediate(() => resolve(outcome(connect(refused.port, '127.0.0.5')))));
    });
    expect(error).toMatchObject({ code: 'FET-0414' });
    await settle();
    expect(refused.connections).toBe(0);
  });

  it('does not crash the process when nobody listens for the refused socket error', async () => {
    const socket = await runInEgressScope(egress(), async () => connect(refused.port, '127.0.0.5'));
    // Not events.once: it would reject on the 'error' this test wants left unheard.
    await new Promise((resolve) => socket.once('close', resolve));
    expect(socket.destroyed).toBe(true);
    expect(refused.connections).toBe(0);
  });

  it('refuses local IPC paths inside a scope', async () => {
    const error = await runInEgressScope(egress(), async () => outcome(connect('/var/run/docker.sock')));
    expect(error?.message).toMatch(/only open TCP sockets/);
  });

  it('leaves sockets outside any scope alone', async () => {
    const error = await outcome(connect(refused.port, '127.0.0.5'));
    expect(error).toBeUndefined();
    await settle();
    expect(refused.connections).toBe(1);
  });
});
