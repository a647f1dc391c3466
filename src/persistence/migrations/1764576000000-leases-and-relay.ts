import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Job status history (every transition, for operators and for proving recoveries) and the outbox
 * relay's claim, so several relaying processes never publish one event at the same time.
 */
export class LeasesAndRelay1764576000000 implements MigrationInterface {
  name = 'LeasesAndRelay1764576000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const pg = queryRunner.connection.options.type === 'postgres';
    const ts = pg ? 'timestamptz' : 'datetime';
    await queryRunner.query(`CREATE TABLE job_transitions (
      id varchar(36) PRIMARY KEY,
      job_id varchar(36) NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
      from_status varchar(16),
      to_status varchar(16) NOT NULL,
      worker_id varchar(128),
      reason varchar(255),
      at ${ts} NOT NULL
    )`);
    await queryRunner.query(`CREATE INDEX idx_job_transitions_job ON job_transitions (job_id, at)`);
    await queryRunner.query(`ALTER TABLE outbox_events ADD COLUMN claimed_by varchar(128)`);
    await queryRunner.query(`ALTER TABLE outbox_events ADD COLUMN claimed_until ${ts}`);
    await queryRunner.query(`CREATE INDEX idx_jobs_status_updated ON jobs (status, updated_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX idx_jobs_status_updated`);
    await queryRunner.query(`ALTER TABLE outbox_events DROP COLUMN claimed_until`);
    await queryRunner.query(`ALTER TABLE outbox_events DROP COLUMN claimed_by`);
    await queryRunner.query(`DROP TABLE job_transitions`);
  }
}
