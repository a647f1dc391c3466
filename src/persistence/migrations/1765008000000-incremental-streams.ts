import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Incremental streams (docs/incremental.md). A job of a stream records its request and the marks
 * it starts from (`jobs.incremental`) and the stream's name (`jobs.stream_name`); the partial
 * unique index lets at most one job of a stream be pending or processing, decided by the store
 * itself so that two submissions racing each other cannot both start from the same marks. The
 * committed marks live in `streams`, one row per (product, stream), written with the completion
 * of the job that read up to them or by PUT …/marks. Every existing job has neither column set.
 */
export class IncrementalStreams1765008000000 implements MigrationInterface {
  name = 'IncrementalStreams1765008000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const pg = queryRunner.connection.options.type === 'postgres';
    const ts = pg ? 'timestamptz' : 'datetime';
    const json = pg ? 'jsonb' : 'json';
    await queryRunner.query(`ALTER TABLE jobs ADD COLUMN incremental ${json}`);
    await queryRunner.query(`ALTER TABLE jobs ADD COLUMN stream_name varchar(128)`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX uniq_jobs_active_stream ON jobs (product_name, stream_name)
       WHERE stream_name IS NOT NULL AND status IN ('pending', 'processing')`,
    );
    await queryRunner.query(`CREATE TABLE streams (
      product_name varchar(100) NOT NULL,
      name varchar(128) NOT NULL,
      marks ${json} NOT NULL,
      last_job_id varchar(36),
      created_at ${ts} NOT NULL,
      updated_at ${ts} NOT NULL,
      PRIMARY KEY (product_name, name)
    )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE streams`);
    // SQLite drops no column an index still names.
    await queryRunner.query(`DROP INDEX uniq_jobs_active_stream`);
    await queryRunner.query(`ALTER TABLE jobs DROP COLUMN stream_name`);
    await queryRunner.query(`ALTER TABLE jobs DROP COLUMN incremental`);
  }
}
