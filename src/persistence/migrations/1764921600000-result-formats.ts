import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Result formats: a job records the `output` it asked for (null: the default, one JSON document,
 * which every existing job is) and, for a per-table result (csv, parquet), the parts its manifest
 * lists. Both nullable, so every existing row stays as it was and reads as a json result.
 */
export class ResultFormats1764921600000 implements MigrationInterface {
  name = 'ResultFormats1764921600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const json = queryRunner.connection.options.type === 'postgres' ? 'jsonb' : 'json';
    await queryRunner.query(`ALTER TABLE jobs ADD COLUMN output ${json}`);
    await queryRunner.query(`ALTER TABLE jobs ADD COLUMN result_parts ${json}`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE jobs DROP COLUMN result_parts`);
    await queryRunner.query(`ALTER TABLE jobs DROP COLUMN output`);
  }
}
