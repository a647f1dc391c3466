import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { ServiceUnavailableError } from '../../common/errors/request-errors.js';
import {
  generateSigningKey,
  signToken,
  startJwksServer,
  type JwksFailure,
  type JwksServer,
  type SigningKey,
} from '../../../test/helpers/jwks-server.js';
import { JwtVerifier, type JwtVerifierOptions } from './jwt-verifier.js';
import { expectInvalidToken, jwtConfig } from './testing/jwt-expectations.js';

describe('JwtVerifier and the JWKS endpoint', () => {
  let server: JwksServer;
  const verifierFor = (options?: JwtVerifierOptions) => new JwtVerifier(jwtConfig({ jwksUrl: server.url, issuer: server.issuer }), options);
  let stray: SigningKey;
  const unknownKidToken = (kid: string) => signToken(stray, { iss: server.issuer, header: { kid } });

  beforeAll(async () => {
    server = await startJwksServer();
    stray = await generateSigningKey('RS256');
  });
  afterEach(() => {
    server.recover();
    vi.useRealTimers();
  });
  afterAll(() => server.close());

  it('fetches the key set once for many tokens, concurrent first ones included', async () => {
    const verifier = verifierFor();
    const before = server.fetches;
    const tokens = await Promise.all(
      Array.from({ length: 10 }, (_, i) => server.sign({ sub: `user-${i}`, kid: i % 2 ? 'ec-1' : 'rsa-1' })),
    );
    await Promise.all(tokens.map((token) => verifier.verify(token)));
    await verifier.verify(tokens[0]);
    expect(server.fetches - before).toBe(1);
  });

  it('picks up a rotated key with one extra fetch, and a flood of unknown kids does not refetch each time', async () => {
    // Only Date is faked: jose's cache and cooldown read it, while sockets keep real timers.
    vi.useFakeTimers({ toFake: ['Date'] });
    const verifier = verifierFor();
    await verifier.verify(await server.sign({ kid: 'rsa-1' }));
    const afterFirst = server.fetches;

    const rotated = await server.addKey('RS256', 'rsa-rotated');
    vi.setSystemTime(Date.now() + 31_000);
    const principal = await verifier.verify(await server.sign({ kid: rotated.kid, sub: 'after-rotation' }));
    expect(principal.id).toBe('jwt:https://issuer.test|after-rotation');
    expect(server.fetches - afterFirst).toBe(1);

    for (let i = 0; i < 25; i += 1) {
      await expectInvalidToken(verifier.verify(await unknownKidToken(`made-up-${i}`)), 'token names an unknown key');
    }
    expect(server.fetches - afterFirst).toBe(1);

    // Once the cooldown has passed, an unknown kid may look again, once.
    vi.setSystemTime(Date.now() + 31_000);
    for (let i = 0; i < 5; i += 1) {
      await expectInvalidToken(verifier.verify(await unknownKidToken(`later-${i}`)), 'token names an unknown key');
    }
    expect(server.fetches - afterFirst).toBe(2);
    server.removeKey(rotated.kid);
  });

  it('stops accepting a withdrawn key once the cached key set has aged out', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const withdrawn = await server.addKey('ES256', 'ec-withdrawn');
    const verifier = verifierFor();
    await verifier.verify(await server.sign({ kid: withdrawn.kid }));
    server.removeKey(withdrawn.kid);
    vi.setSystemTime(Date.now() + 11 * 60_000);
    await expectInvalidToken(verifier.verify(await signToken(withdrawn, { iss: server.issuer })), 'token names an unknown key');
  });

  it.each<JwksFailure>(['error', 'garbage', 'not-a-jwks', 'hang'])(
    'answers 503 while the key set endpoint fails (%s), and recovers on the next request',
    async (mode) => {
      const verifier = verifierFor({ jwks: { timeoutMs: 300 } });
      const token = await server.sign();
      server.fail(mode);
      const before = server.fetches;
      const error = await verifier.verify(token).catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(ServiceUnavailableError);
      expect((error as ServiceUnavailableError).status).toBe(503);
      expect((error as ServiceUnavailableError).code).toBe('FET-0003');
      await expect(verifier.verify(token)).rejects.toBeInstanceOf(ServiceUnavailableError);
      expect(server.fetches - before).toBe(2);

      server.recover();
      await expect(verifier.verify(token)).resolves.toMatchObject({ id: 'jwt:https://issuer.test|user-1' });
    },
  );

  it('keeps verifying with cached keys while the endpoint is down', async () => {
    const verifier = verifierFor();
    await verifier.verify(await server.sign());
    server.fail('error');
    await expect(verifier.verify(await server.sign({ kid: 'ec-1', sub: 'cached' }))).resolves.toMatchObject({
      id: 'jwt:https://issuer.test|cached',
    });
  });

  it('answers 503, not 401, for an unknown kid when the refetch it triggers fails', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const verifier = verifierFor({ jwks: { timeoutMs: 300 } });
    await verifier.verify(await server.sign());
    server.fail('error');
    vi.setSystemTime(Date.now() + 31_000);
    await expect(verifier.verify(await unknownKidToken('rotated-while-down'))).rejects.toBeInstanceOf(ServiceUnavailableError);
  });

  it('tries each key of the right type for a token without kid', async () => {
    const second = await server.addKey('RS256', 'rsa-second');
    const verifier = verifierFor();
    const principal = await verifier.verify(await server.sign({ kid: second.kid, sub: 'no-kid', header: { kid: undefined } }));
    expect(principal.id).toBe('jwt:https://issuer.test|no-kid');
    await expectInvalidToken(
      verifier.verify(await signToken(stray, { iss: server.issuer, header: { kid: undefined } })),
      'token signature is invalid',
    );
    server.removeKey(second.kid);
  });
});
