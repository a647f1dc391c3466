import { Injectable } from '@nestjs/common';
import { Clock } from '../common/clock/clock.js';
import { IdGenerator } from '../common/clock/id-generator.js';
import type { ConnectionRecord } from '../datasource/connection.entity.js';
import { CredentialCipher } from '../datasource/credential-cipher.service.js';
import type { CreateConnectionDto } from './dto/create-connection.dto.js';
import type { UpdateConnectionDto } from './dto/update-connection.dto.js';
import {
  changedIdentityMetadata,
  ENDPOINT_IDENTITY_FIELDS,
  sameHost,
  type EndpointCredential,
  type IdentityChange,
} from './endpoint-identity.js';

type SslChanges = { readonly ca?: string | null; readonly cert?: string | null; readonly key?: string | null };

/** A merged record, and what the PATCH did to its endpoint identity (null: nothing). */
export interface MergedConnection {
  readonly record: ConnectionRecord;
  readonly identity: IdentityChange | null;
}

/** What a connection record is made of a request: names trimmed, secrets sealed under the current key, times stamped. */
@Injectable()
export class ConnectionRecordFactory {
  constructor(
    private readonly cipher: CredentialCipher,
    private readonly clock: Clock,
    private readonly ids: IdGenerator,
  ) {}

  /** A new record; `configName` is the trimmed name the caller has checked. */
  create(productName: string, configName: string, dto: CreateConnectionDto): ConnectionRecord {
    const now = this.clock.now();
    return {
      id: this.ids.orderedUuid(),
      productName,
      configName,
      type: dto.type,
      host: dto.host.trim(),
      port: dto.port,
      databaseName: dto.databaseName.trim(),
      schemaName: dto.schema?.trim() || null,
      userName: dto.userName.trim(),
      passwordEncrypted: this.cipher.encrypt(dto.password),
      sslMode: dto.ssl?.mode || null,
      sslCaEncrypted: this.cipher.encryptOptional(dto.ssl?.ca),
      sslCertEncrypted: this.cipher.encryptOptional(dto.ssl?.cert),
      sslKeyEncrypted: this.cipher.encryptOptional(dto.ssl?.key),
      encryptionKeyVersion: this.cipher.keyVersion,
      metadata: dto.metadata ?? null,
      createdAt: now,
      updatedAt: now,
      deletedAt: null,
    };
  }

  /**
   * Merge update (see UpdateConnectionDto). Secrets present in the body are encrypted with the
   * current key version; existing ones are re-encrypted too so a row never mixes versions.
   * updatedAt always moves forward, even on a clock that stands still: it versions the cached schema.
   *
   * A stored credential goes only where it was entered: when the PATCH changes the endpoint's
   * identity (endpoint-identity.ts), the password, client certificate and key it does not replace
   * itself are dropped.
   */
  merge(current: ConnectionRecord, dto: UpdateConnectionDto): MergedConnection {
    const version = current.encryptionKeyVersion;
    const reseal = (incoming: string | null | undefined, stored: string | null) =>
      incoming === undefined ? this.cipher.reseal(stored, version) : this.cipher.encryptOptional(incoming);
    const ssl = dto.ssl === null ? { mode: null, ca: null, cert: null, key: null } : (dto.ssl ?? {});
    const next: ConnectionRecord = {
      ...current,
      configName: dto.configName?.trim() ?? current.configName,
      type: dto.type ?? current.type,
      host: dto.host?.trim() ?? current.host,
      port: dto.port ?? current.port,
      databaseName: dto.databaseName?.trim() ?? current.databaseName,
      schemaName: dto.schema === undefined ? current.schemaName : dto.schema?.trim() || null,
      userName: dto.userName?.trim() ?? current.userName,
      passwordEncrypted:
        dto.password === undefined ? this.cipher.reseal(current.passwordEncrypted, version) : this.cipher.encrypt(dto.password),
      sslMode: ssl.mode === undefined ? current.sslMode : ssl.mode || null,
      sslCaEncrypted: reseal(ssl.ca, current.sslCaEncrypted),
      sslCertEncrypted: reseal(ssl.cert, current.sslCertEncrypted),
      sslKeyEncrypted: reseal(ssl.key, current.sslKeyEncrypted),
      encryptionKeyVersion: this.cipher.keyVersion,
      metadata: dto.metadata === undefined ? current.metadata : dto.metadata,
      updatedAt: new Date(Math.max(this.clock.nowMs(), current.updatedAt.getTime() + 1)),
    };
    const changed = this.identityChanges(current, next, ssl);
    if (changed.length === 0) return { record: next, identity: null };

    const cleared: EndpointCredential[] = [];
    if (dto.password === undefined && next.passwordEncrypted !== '') {
      next.passwordEncrypted = '';
      cleared.push('password');
    }
    if (ssl.cert === undefined && next.sslCertEncrypted !== null) {
      next.sslCertEncrypted = null;
      cleared.push('ssl.cert');
    }
    if (ssl.key === undefined && next.sslKeyEncrypted !== null) {
      next.sslKeyEncrypted = null;
      cleared.push('ssl.key');
    }
    return { record: next, identity: { changed, cleared } };
  }

  /** The identity fields whose value the PATCH changes, in ENDPOINT_IDENTITY_FIELDS order, then metadata. */
  private identityChanges(current: ConnectionRecord, next: ConnectionRecord, ssl: SslChanges): string[] {
    const stored = (sealed: string | null) => (sealed === null ? null : this.cipher.decrypt(sealed, current.encryptionKeyVersion));
    // A PEM given again unchanged is no change; one absent from the body is kept as it is.
    const pemChanged = (incoming: string | null | undefined, sealed: string | null) =>
      incoming !== undefined && (incoming || null) !== stored(sealed);
    const changes: Record<(typeof ENDPOINT_IDENTITY_FIELDS)[number], boolean> = {
      type: next.type !== current.type,
      host: !sameHost(next.host, current.host),
      port: next.port !== current.port,
      databaseName: next.databaseName !== current.databaseName,
      'ssl.mode': next.sslMode !== current.sslMode,
      'ssl.ca': pemChanged(ssl.ca, current.sslCaEncrypted),
      'ssl.cert': pemChanged(ssl.cert, current.sslCertEncrypted),
      'ssl.key': pemChanged(ssl.key, current.sslKeyEncrypted),
    };
    return [...ENDPOINT_IDENTITY_FIELDS.filter((field) => changes[field]), ...changedIdentityMetadata(current, next)];
  }
}
