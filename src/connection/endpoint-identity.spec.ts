import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ENGINE_FACTS, identityMetadataOf } from '../engine/connectors/shared/engine-facts.js';
import { changedIdentityMetadata, ENDPOINT_IDENTITY_FIELDS, sameHost } from './endpoint-identity.js';

describe('endpoint identity', () => {
  it('compares hosts as DNS does: without case or the trailing dot, and nothing more', () => {
    expect(sameHost('DB.Example.com', 'db.example.com.')).toBe(true);
    expect(sameHost(' db.example.com ', 'db.example.com')).toBe(true);
    expect(sameHost('db.example.com', 'db.example.co')).toBe(false);
    expect(sameHost('127.0.0.1', 'localhost')).toBe(false);
  });

  it("compares the identity metadata of both engines' keys, as JSON values", () => {
    const oracle = (metadata: Record<string, unknown> | null) => ({ type: 'ORACLE', metadata });
    expect(changedIdentityMetadata(oracle({ serviceName: 'A', team: 'x' }), oracle({ team: 'y', serviceName: 'A' }))).toEqual([]);
    expect(changedIdentityMetadata(oracle({ serviceName: 'A' }), oracle({ serviceName: 'A', sslServerCertDN: 'CN=x' }))).toEqual([
      'metadata.sslServerCertDN',
    ]);
    expect(changedIdentityMetadata(oracle({ serviceName: 'A' }), oracle({ serviceName: ['A'] }))).toEqual(['metadata.serviceName']);
    // An Oracle record turned MongoDB compares Oracle's keys and MongoDB's.
    expect(
      changedIdentityMetadata(oracle({ serviceName: 'A' }), { type: 'MONGODB', metadata: { serviceName: 'A', authSource: 'admin' } }),
    ).toEqual(['metadata.authSource']);
    expect(changedIdentityMetadata({ type: 'POSTGRESQL', metadata: { a: 1 } }, { type: 'POSTGRESQL', metadata: null })).toEqual([]);
  });

  it('docs/security.md lists the same fields, and each engine with its identity metadata', () => {
    const doc = readFileSync(new URL('../../docs/security.md', import.meta.url), 'utf8');
    const rows = new Map([...doc.matchAll(/^ *\| ([^|]+) \| ([^|]+) \|$/gm)].map(([, engine, cell]) => [engine.trim(), cell] as const));
    const common = rows.get('every engine') ?? '';
    expect([...common.matchAll(/`([^`]+)`/g)].map(([, field]) => field)).toEqual([...ENDPOINT_IDENTITY_FIELDS]);
    for (const facts of ENGINE_FACTS) {
      const cell = rows.get(facts.label);
      expect(cell, `a row for ${facts.label}`).toBeDefined();
      const documented = [...cell!.matchAll(/`metadata\.([^`]+)`/g)].map(([, key]) => key);
      expect(documented, facts.label).toEqual([...identityMetadataOf(facts.type)]);
    }
  });
});
