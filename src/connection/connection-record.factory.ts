import { Injectable } from '@nestjs/common';
import { Clock } from '../common/clock/clock.js';
import { IdGenerator } from '../common/clock/id-generator.js';
import type { ConnectionRecord } from '../datasource/connection.entity.js';
import { CredentialCipher } from '../datasource/credential-cipher.service.js';
import type { CreateConnectionDto } from './dto/create-connection.dto.js';
import type { UpdateConnectionDto } from './dto/update-connection.dto.js';

type SslChanges = { readonly ca?: string | null; readonly cert?: string | null; readonly key?: string | null };

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
   */
  merge(current: ConnectionRecord, dto: UpdateConnectionDto): ConnectionRecord {
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
    // A stored password goes only where it was entered: pointing the connection elsewhere (or
    // changing how it is protected in transit) without a new password forgets the old one.
    if (dto.password === undefined && this.movesEndpoint(current, next, ssl)) next.passwordEncrypted = '';
    return next;
  }

  private movesEndpoint(current: ConnectionRecord, next: ConnectionRecord, ssl: SslChanges): boolean {
    if (
      next.type !== current.type ||
      next.host.toLowerCase() !== current.host.toLowerCase() ||
      next.port !== current.port ||
      next.databaseName !== current.databaseName
    ) {
      return true;
    }
    if (next.sslMode !== current.sslMode) return true;
    const stored = (sealed: string | null) => (sealed === null ? null : this.cipher.decrypt(sealed, current.encryptionKeyVersion));
    const changed = (incoming: string | null | undefined, sealed: string | null) =>
      incoming !== undefined && (incoming || null) !== stored(sealed);
    return (
      changed(ssl.ca, current.sslCaEncrypted) || changed(ssl.cert, current.sslCertEncrypted) || changed(ssl.key, current.sslKeyEncrypted)
    );
  }
}
