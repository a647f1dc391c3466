import type { DataSource, Repository } from 'typeorm';
import { CONNECTION_ENTITY, type ConnectionRecord } from './connection.entity.js';
import { CredentialCipher, CredentialKeyError } from './credential-cipher.service.js';

export interface RotationFailure {
  readonly id: string;
  readonly configName: string;
  readonly keyVersion: string;
  /** Names the variable to set; never carries key material or a secret. */
  readonly message: string;
}

export interface RotationReport {
  readonly currentVersion: string;
  readonly dryRun: boolean;
  /** Rows re-encrypted under the current version (in a dry run: rows that would be). */
  readonly rewritten: number;
  readonly alreadyCurrent: number;
  /** Rows changed by someone else between read and write; left as that writer put them. */
  readonly skippedConcurrent: number;
  readonly failed: readonly RotationFailure[];
  /** Rows still under an older version after the run; null in a dry run, which changes nothing. */
  readonly remaining: number | null;
  /** Completed jobs by the key version their result was sealed with (`unknown`: sealed before versions were recorded). */
  readonly resultsByVersion: Readonly<Record<string, number>>;
}

export type SecretColumns = Pick<ConnectionRecord, 'passwordEncrypted' | 'sslCaEncrypted' | 'sslCertEncrypted' | 'sslKeyEncrypted'>;

const SECRET_COLUMNS: ReadonlyArray<readonly [keyof SecretColumns, string]> = [
  ['passwordEncrypted', 'password_encrypted'],
  ['sslCaEncrypted', 'ssl_ca_encrypted'],
  ['sslCertEncrypted', 'ssl_cert_encrypted'],
  ['sslKeyEncrypted', 'ssl_key_encrypted'],
];

export type StoredSecrets = Pick<ConnectionRecord, 'id' | 'configName' | 'encryptionKeyVersion'> & SecretColumns;

/**
 * Re-encrypts every stored connection secret (live and soft-deleted rows) that is not under the
 * current key version. Each row is one conditional update that only applies while its
 * ciphertexts and version are still the ones read, so a PATCH that lands in between wins and is
 * never overwritten with stale values. Idempotent: a second run finds nothing to do.
 */
export class CredentialRotation {
  private readonly connections: Repository<ConnectionRecord>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly cipher: CredentialCipher,
    private readonly pageSize = 200,
  ) {
    this.connections = dataSource.getRepository<ConnectionRecord>(CONNECTION_ENTITY);
  }

  async rotate(options: { readonly dryRun?: boolean } = {}): Promise<RotationReport> {
    const dryRun = options.dryRun ?? false;
    const current = this.cipher.keyVersion;
    let rewritten = 0;
    let alreadyCurrent = 0;
    let skippedConcurrent = 0;
    const failed: RotationFailure[] = [];

    for await (const row of this.allRows()) {
      if (row.encryptionKeyVersion === current) {
        alreadyCurrent += 1;
        continue;
      }
      let next: SecretColumns;
      try {
        next = this.resealed(row);
      } catch (error) {
        if (!(error instanceof CredentialKeyError)) throw error;
        failed.push({ id: row.id, configName: row.configName, keyVersion: row.encryptionKeyVersion, message: error.message });
        continue;
      }
      if (dryRun || (await this.replace(row, next))) rewritten += 1;
      else skippedConcurrent += 1;
    }

    return {
      currentVersion: current,
      dryRun,
      rewritten,
      alreadyCurrent,
      skippedConcurrent,
      failed,
      remaining: dryRun
        ? null
        : await this.connections.createQueryBuilder('c').where('c.encryption_key_version <> :current', { current }).getCount(),
      resultsByVersion: await this.resultsByVersion(),
    };
  }

  /** Keyset pages by id, so rows rewritten meanwhile are neither skipped nor read twice. */
  private async *allRows(): AsyncGenerator<StoredSecrets> {
    let after = '';
    for (;;) {
      const page = await this.connections
        .createQueryBuilder('c')
        .select(['c.id', 'c.configName', 'c.encryptionKeyVersion', ...SECRET_COLUMNS.map(([property]) => `c.${property}`)])
        .where('c.id > :after', { after })
        .orderBy('c.id', 'ASC')
        .limit(this.pageSize)
        .getMany();
      yield* page;
      if (page.length < this.pageSize) return;
      after = (page[page.length - 1] as StoredSecrets).id;
    }
  }

  private resealed(row: StoredSecrets): SecretColumns {
    const version = row.encryptionKeyVersion;
    return {
      passwordEncrypted: this.cipher.reseal(row.passwordEncrypted, version),
      sslCaEncrypted: this.cipher.reseal(row.sslCaEncrypted, version),
      sslCertEncrypted: this.cipher.reseal(row.sslCertEncrypted, version),
      sslKeyEncrypted: this.cipher.reseal(row.sslKeyEncrypted, version),
    };
  }

  /**
   * True when the row still held what was read and now holds `next` under the current version.
   * Protected so a test can put a concurrent writer between the read and this write.
   */
  protected async replace(row: StoredSecrets, next: SecretColumns): Promise<boolean> {
    const update = this.connections
      .createQueryBuilder()
      .update()
      .set({ ...next, encryptionKeyVersion: this.cipher.keyVersion })
      .where('id = :id AND encryption_key_version = :version', { id: row.id, version: row.encryptionKeyVersion });
    for (const [property, column] of SECRET_COLUMNS) {
      const seen = row[property];
      if (seen === null) update.andWhere(`${column} IS NULL`);
      else update.andWhere(`${column} = :seen_${column}`, { [`seen_${column}`]: seen });
    }
    const result = await update.execute();
    return (result.affected ?? 0) === 1;
  }

  private async resultsByVersion(): Promise<Record<string, number>> {
    const rows: Array<{ version: string | null; count: string | number }> = await this.dataSource.query(
      `SELECT result_key_version AS version, COUNT(*) AS count FROM jobs WHERE status = 'completed' GROUP BY result_key_version`,
    );
    return Object.fromEntries(rows.map((row) => [row.version ?? 'unknown', Number(row.count)]));
  }
}
