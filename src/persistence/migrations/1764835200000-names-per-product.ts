import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A connection's name is unique within its product (the unassigned ones share one namespace), so
 * a product can neither learn nor squat another product's names. Every existing row stays valid:
 * names were unique across all products before. Product names are lower-cased, as every write
 * path already stores them, so lookups can compare them exactly.
 *
 * Each job also records the id of the connection each of its datasources resolved to at
 * submission; the worker loads that very connection instead of looking the name up again. Rows of
 * jobs submitted before this migration have none and are resolved by name within the job's product.
 */
export class NamesPerProduct1764835200000 implements MigrationInterface {
  name = 'NamesPerProduct1764835200000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`UPDATE connections SET product_name = lower(trim(product_name)) WHERE product_name IS NOT NULL`);
    await queryRunner.query(`UPDATE connections SET product_name = NULL WHERE product_name = ''`);
    await queryRunner.query(`DROP INDEX uniq_connections_live_config_name`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX uniq_connections_live_product_config_name ON connections (COALESCE(product_name, ''), config_name) WHERE deleted_at IS NULL`,
    );
    await queryRunner.query(`CREATE INDEX idx_connections_config_name ON connections (config_name)`);

    await queryRunner.query(`ALTER TABLE job_datasources ADD COLUMN connection_id varchar(36)`);
    await queryRunner.query(`CREATE INDEX idx_job_datasources_connection_id ON job_datasources (connection_id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX idx_job_datasources_connection_id`);
    await queryRunner.query(`ALTER TABLE job_datasources DROP COLUMN connection_id`);
    await queryRunner.query(`DROP INDEX idx_connections_config_name`);
    await queryRunner.query(`DROP INDEX uniq_connections_live_product_config_name`);
    // Fails when two products now hold the same name, which is the point of going back: resolve first.
    await queryRunner.query(`CREATE UNIQUE INDEX uniq_connections_live_config_name ON connections (config_name) WHERE deleted_at IS NULL`);
  }
}
