import type { DataSource, Repository } from 'typeorm';
import { CredentialCipher, CredentialKeyError } from '../datasource/credential-cipher.service.js';
import { WEBHOOK_ENTITY, type WebhookRecord } from './webhook.entity.js';

export interface WebhookRotationFailure {
  readonly id: string;
  readonly keyVersion: string;
  /** Names the variable to set; never carries key material or the secret. */
  readonly message: string;
}

export interface WebhookRotationReport {
  /** Secrets re-sealed under the current version (in a dry run: that would be). */
  readonly rewritten: number;
  readonly alreadyCurrent: number;
  /** Rotated through the API between read and write: left as that rotation put them. */
  readonly skippedConcurrent: number;
  readonly failed: readonly WebhookRotationFailure[];
  /** Secrets still under an older version after the run; null in a dry run. */
  readonly remaining: number | null;
}

type StoredSecret = Pick<WebhookRecord, 'id' | 'secretCiphertext' | 'keyVersion'>;

/**
 * The webhook half of `rotate-credentials`: re-seals every webhook signing secret (deleted
 * registrations included, their rows keep the sealed secret) that is not under the current key
 * version. The secret itself does not change, so receivers notice nothing; each row is one
 * conditional update that applies only while its ciphertext and version are still the ones read,
 * so a rotate-secret through the API meanwhile wins.
 */
export class WebhookSecretRotation {
  private readonly webhooks: Repository<WebhookRecord>;

  constructor(
    dataSource: DataSource,
    private readonly cipher: CredentialCipher,
    private readonly pageSize = 200,
  ) {
    this.webhooks = dataSource.getRepository<WebhookRecord>(WEBHOOK_ENTITY);
  }

  async rotate(options: { readonly dryRun?: boolean } = {}): Promise<WebhookRotationReport> {
    const dryRun = options.dryRun ?? false;
    const current = this.cipher.keyVersion;
    let rewritten = 0;
    let alreadyCurrent = 0;
    let skippedConcurrent = 0;
    const failed: WebhookRotationFailure[] = [];
    for await (const row of this.allRows()) {
      if (row.keyVersion === current) {
        alreadyCurrent += 1;
        continue;
      }
      let resealed: string;
      try {
        resealed = this.cipher.reseal(row.secretCiphertext, row.keyVersion);
      } catch (error) {
        if (!(error instanceof CredentialKeyError)) throw error;
        failed.push({ id: row.id, keyVersion: row.keyVersion, message: error.message });
        continue;
      }
      if (dryRun || (await this.replace(row, resealed))) rewritten += 1;
      else skippedConcurrent += 1;
    }
    const remaining = dryRun
      ? null
      : await this.webhooks.createQueryBuilder('w').where('w.key_version <> :current', { current }).getCount();
    return { rewritten, alreadyCurrent, skippedConcurrent, failed, remaining };
  }

  /** Keyset pages by id: rows rewritten meanwhile are neither skipped nor read twice. */
  private async *allRows(): AsyncGenerator<StoredSecret> {
    let after = '';
    for (;;) {
      const page = await this.webhooks
        .createQueryBuilder('w')
        .select(['w.id', 'w.secretCiphertext', 'w.keyVersion'])
        .where('w.id > :after', { after })
        .orderBy('w.id', 'ASC')
        .limit(this.pageSize)
        .getMany();
      yield* page;
      if (page.length < this.pageSize) return;
      after = (page[page.length - 1] as StoredSecret).id;
    }
  }

  /** Protected so a spec can put a concurrent rotate-secret between the read and this write. */
  protected async replace(row: StoredSecret, resealed: string): Promise<boolean> {
    const result = await this.webhooks
      .createQueryBuilder()
      .update()
      .set({ secretCiphertext: resealed, keyVersion: this.cipher.keyVersion })
      .where('id = :id AND key_version = :version AND secret_ciphertext = :seen', {
        id: row.id,
        version: row.keyVersion,
        seen: row.secretCiphertext,
      })
      .execute();
    return (result.affected ?? 0) === 1;
  }
}
