import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Product API keys (only their SHA-256 is stored), the product that owns each job (so a
 * product principal's reads and lists are one indexed filter), and the master-key version each
 * result was sealed with (so it can still be opened after a rotation).
 */
export class PrincipalsAndKeyVersions1764662400000 implements MigrationInterface {
  name = 'PrincipalsAndKeyVersions1764662400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const pg = queryRunner.connection.options.type === 'postgres';
    const ts = pg ? 'timestamptz' : 'datetime';
    await queryRunner.query(`CREATE TABLE api_keys (
      id varchar(36) PRIMARY KEY,
      product_name varchar(100) NOT NULL,
      name varchar(100) NOT NULL,
      key_hash varchar(64) NOT NULL,
      created_by varchar(200),
      created_at ${ts} NOT NULL,
      revoked_at ${ts}
    )`);
    await queryRunner.query(`CREATE UNIQUE INDEX uniq_api_keys_hash ON api_keys (key_hash)`);
    await queryRunner.query(`CREATE INDEX idx_api_keys_created_at ON api_keys (created_at)`);

    await queryRunner.query(`ALTER TABLE jobs ADD COLUMN product_name varchar(100)`);
    await queryRunner.query(`ALTER TABLE jobs ADD COLUMN result_key_version varchar(32)`);
    const source = pg ? `metadata->>'source'` : `json_extract(metadata, '$.source')`;
    await queryRunner.query(`UPDATE jobs SET product_name = lower(trim(${source})) WHERE ${source} IS NOT NULL`);
    await queryRunner.query(`CREATE INDEX idx_jobs_product_created ON jobs (product_name, created_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX idx_jobs_product_created`);
    await queryRunner.query(`ALTER TABLE jobs DROP COLUMN result_key_version`);
    await queryRunner.query(`ALTER TABLE jobs DROP COLUMN product_name`);
    await queryRunner.query(`DROP TABLE api_keys`);
  }
}
