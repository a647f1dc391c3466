import { createHmac, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTHeaderParameters } from 'jose';

/** Algorithms the test keys can be made for; each key signs with exactly one. */
export type SigningAlgorithm = 'RS256' | 'RS384' | 'RS512' | 'PS256' | 'PS384' | 'PS512' | 'ES256' | 'ES384' | 'ES512' | 'EdDSA';

export interface SigningKey {
  readonly kid: string;
  readonly alg: SigningAlgorithm;
  readonly privateKey: CryptoKey;
  /** The public half as published in a JWKS (`kid`, `alg`, `use: sig`). */
  readonly publicJwk: JWK;
  /** The public half as SPKI PEM, the form of AUTH_JWT_PUBLIC_KEY. */
  readonly publicKeyPem: string;
}

/**
 * What goes into a token. Times are offsets in seconds from now; `null` leaves a claim out, which
 * is how tokens without `exp`, `sub`, `iss` or `aud` are made.
 */
export interface TokenOptions {
  /** Default: the issuer given to the server (or `https://issuer.test` for a bare key). */
  readonly iss?: string | null;
  /** Default: the audience given to the server (or `fetcher`). */
  readonly aud?: string | string[] | null;
  /** Default: `user-1`. */
  readonly sub?: string | null;
  /** `exp` = now + this. Default: 300; negative makes an expired token. */
  readonly expiresIn?: number | null;
  /** `nbf` = now + this. Default: no `nbf`; positive makes a token not valid yet. */
  readonly notBefore?: number | null;
  /** `iat` = now + this. Default: 0. */
  readonly issuedAt?: number | null;
  /** Further claims, applied last, so they may also override the ones above. */
  readonly claims?: Readonly<Record<string, unknown>>;
  /** Protected header members to add or override; `kid: undefined` sends no `kid`. */
  readonly header?: Readonly<Record<string, unknown>>;
}

export interface ServerTokenOptions extends TokenOptions {
  /** Which published key signs. Default: the first key with `alg`, else the server's first key. */
  readonly kid?: string;
  readonly alg?: SigningAlgorithm;
}

/** How the JWKS endpoint misbehaves: 500, a 200 that is not JSON, JSON without `keys`, no answer. */
export type JwksFailure = 'error' | 'garbage' | 'not-a-jwks' | 'hang';

export interface JwksServer {
  /** The JWKS URL, for AUTH_JWKS_URL. */
  readonly url: string;
  readonly issuer: string;
  readonly audience: string;
  /** Requests for the JWKS received so far, failed ones included. */
  readonly fetches: number;
  /** Published keys, oldest first. */
  readonly keys: readonly SigningKey[];
  key(kid: string): SigningKey;
  /** Generates and publishes another key, as an issuer does when it rotates. */
  addKey(alg?: SigningAlgorithm, kid?: string): Promise<SigningKey>;
  /** Stops publishing a key (its tokens then name an unknown key once the cache is refreshed). */
  removeKey(kid: string): void;
  /** Makes every following JWKS request fail in `mode` until {@link recover}. */
  fail(mode: JwksFailure): void;
  recover(): void;
  /** A token signed by a published key. */
  sign(options?: ServerTokenOptions): Promise<string>;
  /** An `alg: none` token with these claims and no signature. */
  unsecuredToken(options?: TokenOptions): string;
  /** HS256 with a published key's PEM as the HMAC secret: the algorithm-confusion attack. */
  hmacTokenWithPublicKey(options?: ServerTokenOptions): string;
  close(): Promise<void>;
}

export interface JwksServerOptions {
  /** Keys published from the start. Default: `rsa-1` (RS256) and `ec-1` (ES256). */
  readonly keys?: ReadonlyArray<{ readonly alg: SigningAlgorithm; readonly kid?: string }>;
  readonly issuer?: string;
  readonly audience?: string;
}

const DEFAULT_ISSUER = 'https://issuer.test';
const DEFAULT_AUDIENCE = 'fetcher';
const JWKS_PATH = '/.well-known/jwks.json';

/** A fresh key pair for `alg`, with its public half in JWK and PEM form. */
export async function generateSigningKey(
  alg: SigningAlgorithm = 'RS256',
  kid: string = `${alg.toLowerCase()}-${randomUUID()}`,
): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg);
  const publicJwk: JWK = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
  return { kid, alg, privateKey, publicJwk, publicKeyPem: await exportSPKI(publicKey) };
}

/** A token signed by `key`, whether or not any server publishes it. */
export async function signToken(key: SigningKey, options: TokenOptions = {}): Promise<string> {
  const header = withoutUndefined({ alg: key.alg, typ: 'JWT', kid: key.kid, ...options.header });
  return new SignJWT(claimsOf(options)).setProtectedHeader(header as JWTHeaderParameters).sign(key.privateKey);
}

export function unsecuredToken(options: TokenOptions = {}): string {
  return `${encode(withoutUndefined({ alg: 'none', typ: 'JWT', ...options.header }))}.${encode(claimsOf(options))}.`;
}

/** HS256 keyed with the PEM text of `key`'s public half, which a naive verifier would accept. */
export function hmacTokenWithPublicKey(key: SigningKey, options: TokenOptions = {}): string {
  const input = `${encode(withoutUndefined({ alg: 'HS256', typ: 'JWT', kid: key.kid, ...options.header }))}.${encode(claimsOf(options))}`;
  return `${input}.${createHmac('sha256', key.publicKeyPem).update(input).digest('base64url')}`;
}

/** The same token with some claims changed and the original signature kept. */
export function tamperPayload(token: string, changes: Readonly<Record<string, unknown>>): string {
  const [header, payload, signature] = token.split('.');
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
  return `${header}.${encode({ ...claims, ...changes })}.${signature}`;
}

/** The same token with one bit of its signature flipped. */
export function tamperSignature(token: string): string {
  const [header, payload, signature] = token.split('.');
  const bytes = Buffer.from(signature, 'base64url');
  bytes[Math.floor(bytes.length / 2)] ^= 0x01;
  return `${header}.${payload}.${bytes.toString('base64url')}`;
}

/** Serves a JWKS on 127.0.0.1 (a free port) and signs tokens with its keys. Close it after. */
export async function startJwksServer(options: JwksServerOptions = {}): Promise<JwksServer> {
  const issuer = options.issuer ?? DEFAULT_ISSUER;
  const audience = options.audience ?? DEFAULT_AUDIENCE;
  const initial = options.keys ?? [
    { alg: 'RS256', kid: 'rsa-1' },
    { alg: 'ES256', kid: 'ec-1' },
  ];
  const keys: SigningKey[] = await Promise.all(initial.map(({ alg, kid }) => generateSigningKey(alg, kid)));
  const hanging = new Set<ServerResponse>();
  let failure: JwksFailure | undefined;
  let fetches = 0;

  const handle = (request: IncomingMessage, response: ServerResponse) => {
    if (request.method !== 'GET' || request.url !== JWKS_PATH) {
      response.writeHead(404).end();
      return;
    }
    fetches += 1;
    if (failure === 'hang') {
      hanging.add(response);
      response.on('close', () => hanging.delete(response));
      return;
    }
    if (failure === 'error') {
      response.writeHead(500, { 'content-type': 'text/plain' }).end('internal error');
      return;
    }
    const body =
      failure === 'garbage'
        ? '<html>not a key set'
        : JSON.stringify(failure === 'not-a-jwks' ? { hello: 'world' } : { keys: keys.map((key) => key.publicJwk) });
    response.writeHead(200, { 'content-type': 'application/json' }).end(body);
  };

  const server: Server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;

  const defaults = (tokenOptions: TokenOptions): TokenOptions => ({
    ...tokenOptions,
    iss: tokenOptions.iss === undefined ? issuer : tokenOptions.iss,
    aud: tokenOptions.aud === undefined ? audience : tokenOptions.aud,
  });
  const pick = ({ kid, alg }: ServerTokenOptions): SigningKey => {
    const key = kid !== undefined ? keys.find((k) => k.kid === kid) : alg !== undefined ? keys.find((k) => k.alg === alg) : keys[0];
    if (!key) throw new Error(`the JWKS server has no key ${kid ?? alg}`);
    return key;
  };

  return {
    url: `http://127.0.0.1:${port}${JWKS_PATH}`,
    issuer,
    audience,
    get fetches() {
      return fetches;
    },
    get keys() {
      return [...keys];
    },
    key: (kid) => pick({ kid }),
    async addKey(alg = 'RS256', kid) {
      const key = await generateSigningKey(alg, kid);
      keys.push(key);
      return key;
    },
    removeKey(kid) {
      keys.splice(keys.indexOf(pick({ kid })), 1);
    },
    fail(mode) {
      failure = mode;
    },
    recover() {
      failure = undefined;
    },
    sign: (tokenOptions = {}) => signToken(pick(tokenOptions), defaults(tokenOptions)),
    unsecuredToken: (tokenOptions = {}) => unsecuredToken(defaults(tokenOptions)),
    hmacTokenWithPublicKey: (tokenOptions = {}) => hmacTokenWithPublicKey(pick(tokenOptions), defaults(tokenOptions)),
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const response of hanging) response.destroy();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

function claimsOf(options: TokenOptions): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000);
  const at = (offset: number | null | undefined, fallback: number | undefined) =>
    offset === null ? undefined : offset === undefined ? (fallback === undefined ? undefined : now + fallback) : now + offset;
  const claims = {
    iss: options.iss === undefined ? DEFAULT_ISSUER : (options.iss ?? undefined),
    aud: options.aud === undefined ? DEFAULT_AUDIENCE : (options.aud ?? undefined),
    sub: options.sub === undefined ? 'user-1' : (options.sub ?? undefined),
    iat: at(options.issuedAt, 0),
    nbf: at(options.notBefore, undefined),
    exp: at(options.expiresIn, 300),
    ...options.claims,
  };
  return withoutUndefined(claims);
}

function withoutUndefined(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined));
}

function encode(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}
