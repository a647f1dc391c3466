import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the consumer routes need on a job: its progress while a worker runs it (and its final
 * per-table counts), and the two steps of deleting its result — the intent, recorded first so a
 * crash before the object is gone is finished by the retention sweep, and the deletion itself.
 */
export class ConsumerRoutes1764748800000 implements MigrationInterface {
  name = 'ConsumerRoutes1764748800000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const pg = queryRunner.connection.options.type === 'postgres';
    const ts = pg ? 'timestamptz' : 'datetime';
    await queryRunner.query(`ALTER TABLE jobs ADD COLUMN progress ${pg ? 'jsonb' : 'json'}`);
    await queryRunner.query(`ALTER TABLE jobs ADD COLUMN result_delete_requested_at ${ts}`);
    await queryRunner.query(`ALTER TABLE jobs ADD COLUMN result_deleted_at ${ts}`);
    await queryRunner.query(`CREATE INDEX idx_jobs_status_completed ON jobs (status, completed_at)`);
    await queryRunner.query(`CREATE INDEX idx_jobs_status_created ON jobs (status, created_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX idx_jobs_status_created`);
    await queryRunner.query(`DROP INDEX idx_jobs_status_completed`);
    await queryRunner.query(`ALTER TABLE jobs DROP COLUMN result_deleted_at`);
    await queryRunner.query(`ALTER TABLE jobs DROP COLUMN result_delete_requested_at`);
    await queryRunner.query(`ALTER TABLE jobs DROP COLUMN progress`);
  }
}
