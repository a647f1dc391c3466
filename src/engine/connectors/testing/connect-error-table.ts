import { describe, expect, it } from 'vitest';
import type { DatasourceType } from '../datasource-type.js';
import type { DatasourceConnectError } from '../../errors/datasource-errors.js';
import { ConnectTimeoutError } from '../shared/connect-failure.js';
import type { ResolvedDatasource } from '../shared/engine-connector.js';
import { datasourceRecord } from '../../testing/datasource-records.js';

/** Shaped like a node socket / DNS / TLS error, as the drivers pass them on. */
export const nodeError = (code: string, message: string) => Object.assign(new Error(message), { code });

/**
 * The socket and DNS failures every driver passes on as node raised them, and our own connect
 * deadline: reason rows for a table, the refused port being the engine's default.
 */
export const unreachableReasons = (port: number): [string, unknown, string][] => [
  ['connection refused', nodeError('ECONNREFUSED', `connect ECONNREFUSED 10.0.0.1:${port}`), 'unreachable'],
  ['no route', nodeError('EHOSTUNREACH', 'connect EHOSTUNREACH'), 'unreachable'],
  ['unknown host', nodeError('ENOTFOUND', 'getaddrinfo ENOTFOUND db'), 'unreachable'],
  ['network down', nodeError('ENETUNREACH', 'connect ENETUNREACH'), 'unreachable'],
  ['DNS temporary failure', nodeError('EAI_AGAIN', 'getaddrinfo EAI_AGAIN db'), 'unreachable'],
  ['our connect deadline', new ConnectTimeoutError('connect timeout'), 'timeout'],
];

/** The login and password every connect-error table checks the messages for. */
const LOGIN = 'svc_fetch';
const PASSWORD = 'hunter2-very-secret';

/** A record whose login and password a connect-error message must never show; `overrides` names the engine's own place. */
export function connectErrorDatasource(type: DatasourceType, overrides: Partial<ResolvedDatasource>): ResolvedDatasource {
  const place = { host: 'db.internal.example', port: 1, name: 'ledger', user: LOGIN, password: PASSWORD };
  return datasourceRecord(type, 'ledger_db', place, { id: 'id-1', ...overrides });
}

export interface ConnectErrorTable {
  /** The engine as messages name it: `Cannot connect to <engine> datasource …`. */
  readonly engine: string;
  readonly datasource: ResolvedDatasource;
  readonly classify: (error: unknown) => string;
  readonly toConnectError: (error: unknown, ds: ResolvedDatasource, timeoutMs: number) => DatasourceConnectError;
  /** [what the error is, the error, the reason it classifies as]. */
  readonly reasons: readonly (readonly [string, unknown, string])[];
  /** [reason, the error, what the message says beyond the prefix]. The timeout is 2500 ms. */
  readonly messages: readonly (readonly [string, unknown, RegExp])[];
  /** Driver text the messages must not carry through, beyond the login and the password. */
  readonly hidden?: readonly string[];
  /** The title of the message cases, where an engine promises more than the usual. */
  readonly messageTitle?: string;
}

/**
 * The two tables of an engine's connect-error spec: each error classifies as its reason, and
 * the message for it names the datasource and says why, without the login, the password or a
 * URL (which could hold either).
 */
export function describeConnectErrors(table: ConnectErrorTable): void {
  describe(`${table.engine} connect error classification`, () => {
    it.each(table.reasons.map((row) => [...row]))('%s → reason', (_label, error, reason) => {
      expect(table.classify(error)).toBe(reason);
    });

    const title = table.messageTitle ?? 'message names the datasource and the reason, without secrets';
    const hidden = table.hidden ?? [];
    it.each(table.messages.map((row) => [...row]))(`%s: ${title}`, (reason, error, pattern) => {
      const { configName } = table.datasource;
      const connectError = table.toConnectError(error, table.datasource, 2500);
      expect(connectError.reason).toBe(reason);
      expect(connectError.configName).toBe(configName);
      expect(connectError.message.startsWith(`Cannot connect to ${table.engine} datasource "${configName}": `)).toBe(true);
      expect(connectError.message).toMatch(pattern);
      expect(connectError.message.toLowerCase()).not.toContain(LOGIN);
      expect(connectError.message).not.toContain('hunter2');
      expect(connectError.message).not.toContain('://');
      for (const text of hidden) expect(connectError.message).not.toContain(text);
    });
  });
}
