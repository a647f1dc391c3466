import { canonicalJson } from '../common/json/canonical-json.js';
import { normalizeHost } from '../engine/egress/egress-policy.js';
import { ENGINE_FACTS, identityMetadataOf } from '../engine/connectors/shared/engine-facts.js';

/**
 * The fields of a stored connection that decide which server its credentials are presented to and
 * how that server is verified, besides each engine's identity metadata (EngineFacts.identityMetadata).
 * The client certificate and key are among them: Oracle's thin driver trusts every certificate of
 * the wallet they make (the client's own included), and on every engine they are a client
 * identity issued for one server. docs/security.md lists the same fields.
 */
export const ENDPOINT_IDENTITY_FIELDS = ['type', 'host', 'port', 'databaseName', 'ssl.mode', 'ssl.ca', 'ssl.cert', 'ssl.key'] as const;

/** `metadata.serviceName, metadata.sslServerCertDN for ORACLE; …`: each engine's identity metadata, for the API docs. */
export const IDENTITY_METADATA_TEXT = ENGINE_FACTS.map((facts) => ({ type: facts.type, keys: identityMetadataOf(facts.type) }))
  .filter(({ keys }) => keys.length > 0)
  .map(({ type, keys }) => `${keys.map((key) => `metadata.${key}`).join(', ')} for ${type}`)
  .join('; ');

/** The stored credentials an identity change drops, unless the same PATCH gives new ones. */
export const ENDPOINT_CREDENTIALS = ['password', 'ssl.cert', 'ssl.key'] as const;
export type EndpointCredential = (typeof ENDPOINT_CREDENTIALS)[number];

/** What a PATCH did to the endpoint's identity. */
export interface IdentityChange {
  /** Identity fields whose value changed: ENDPOINT_IDENTITY_FIELDS in order, then `metadata.<key>`. */
  readonly changed: readonly string[];
  /** Stored credentials removed because of it (those the PATCH replaced are not listed). */
  readonly cleared: readonly EndpointCredential[];
}

/** Host names compare as DNS does: case-insensitively, with or without the root's trailing dot. */
export function sameHost(a: string, b: string): boolean {
  return normalizeHost(a) === normalizeHost(b);
}

/** The identity metadata keys of either engine whose value differs (absent and undefined are alike). */
export function changedIdentityMetadata(
  before: { readonly type: string; readonly metadata: Readonly<Record<string, unknown>> | null },
  after: { readonly type: string; readonly metadata: Readonly<Record<string, unknown>> | null },
): string[] {
  const keys = new Set([...identityMetadataOf(before.type), ...identityMetadataOf(after.type)]);
  const valueOf = (metadata: Readonly<Record<string, unknown>> | null, key: string) =>
    metadata?.[key] === undefined ? undefined : canonicalJson(metadata[key]);
  return [...keys].filter((key) => valueOf(before.metadata, key) !== valueOf(after.metadata, key)).map((key) => `metadata.${key}`);
}
