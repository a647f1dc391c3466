import { createServer } from 'node:net';
import { expect, it } from 'vitest';
import { startCountingListener, type CountingListener } from '../../egress/testing/counting-listener.js';
import { DatasourceConnectError } from '../../errors/datasource-errors.js';
import type { ConnectorSession, OpenSessionOptions, ResolvedDatasource } from '../shared/engine-connector.js';

/** A port nothing listens on: bind an ephemeral port, then release it. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A server that accepts connections and never says a word: a hung database. */
export function startSilentServer(): Promise<CountingListener> {
  return startCountingListener('127.0.0.1', { onConnection: () => undefined });
}

/** Awaits a connect that must fail (a session it opens after all is closed) and holds it to a DatasourceConnectError. */
export async function expectConnectError(connecting: Promise<unknown>): Promise<DatasourceConnectError> {
  const error = await connecting.then(
    async (session) => {
      await (session as ConnectorSession).close();
      throw new Error('expected the connection to fail');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DatasourceConnectError);
  return error as DatasourceConnectError;
}

export interface ConnectProbe {
  /** Opens a session on the probe record with `overrides`. */
  readonly open: (overrides: Partial<ResolvedDatasource>, options: OpenSessionOptions) => Promise<unknown>;
  /** Awaits a connect that must fail and checks what its error may not show; the error. */
  readonly failure: (connecting: Promise<unknown>) => Promise<DatasourceConnectError>;
}

/** The connect failures every engine meets alike against a local server, registered in the caller's describe. */
export function connectFailureChecks({ open, failure }: ConnectProbe): void {
  it('reports an unresolvable host name as unreachable', async () => {
    const error = await failure(open({ host: 'no-such-host.invalid' }, { connectTimeoutMs: 5_000 }));
    expect(error.reason).toBe('unreachable');
  });

  it('reports a server that never answers as timeout, within the connect timeout', async () => {
    const silent = await startSilentServer();
    try {
      const started = Date.now();
      const error = await failure(open({ port: silent.port }, { connectTimeoutMs: 300 }));
      expect(error.reason).toBe('timeout');
      expect(error.message).toContain('300 ms');
      expect(Date.now() - started).toBeLessThan(1_500);
    } finally {
      await silent.close();
    }
  });

  it('stops connecting at once when aborted', async () => {
    const silent = await startSilentServer();
    try {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 100);
      const started = Date.now();
      await expect(open({ port: silent.port }, { connectTimeoutMs: 30_000, signal: controller.signal })).rejects.toMatchObject({
        name: 'AbortError',
      });
      expect(Date.now() - started).toBeLessThan(1_000);
    } finally {
      await silent.close();
    }
  });
}
