import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhooks (docs/webhooks.md). `webhooks` holds the registrations, their secret sealed with the
 * credential cipher (never in clear) and the key version it was sealed under; a deleted one keeps
 * its row (deleted_at) so that its deliveries stay readable. `webhook_deliveries` is one row per
 * (webhook, terminal event), inserted in the transaction of the job's terminal status, claimed by
 * the dispatcher like the outbox's events. `webhook_delivery_attempts` is one row per HTTP attempt.
 */
export class Webhooks1765094400000 implements MigrationInterface {
  name = 'Webhooks1765094400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const pg = queryRunner.connection.options.type === 'postgres';
    const ts = pg ? 'timestamptz' : 'datetime';
    const json = pg ? 'jsonb' : 'json';
    await queryRunner.query(`CREATE TABLE webhooks (
      id varchar(36) PRIMARY KEY,
      product_name varchar(100) NOT NULL,
      url varchar(2048) NOT NULL,
      events ${json} NOT NULL,
      description varchar(500),
      secret_ciphertext text NOT NULL,
      key_version varchar(32) NOT NULL,
      created_at ${ts} NOT NULL,
      deleted_at ${ts}
    )`);
    await queryRunner.query(`CREATE INDEX idx_webhooks_product ON webhooks (product_name, created_at)`);
    await queryRunner.query(`CREATE TABLE webhook_deliveries (
      id varchar(36) PRIMARY KEY,
      webhook_id varchar(36) NOT NULL REFERENCES webhooks (id),
      event_id varchar(200) NOT NULL,
      job_id varchar(36) NOT NULL,
      event_type varchar(64) NOT NULL,
      payload ${json} NOT NULL,
      state varchar(16) NOT NULL,
      attempts integer NOT NULL DEFAULT 0,
      next_attempt_at ${ts} NOT NULL,
      created_at ${ts} NOT NULL,
      first_attempt_at ${ts},
      claimed_by varchar(64),
      claimed_until ${ts},
      last_status_code integer,
      last_error varchar(1000),
      UNIQUE (webhook_id, event_id)
    )`);
    await queryRunner.query(`CREATE INDEX idx_webhook_deliveries_due ON webhook_deliveries (state, next_attempt_at)`);
    await queryRunner.query(`CREATE INDEX idx_webhook_deliveries_webhook ON webhook_deliveries (webhook_id, created_at)`);
    await queryRunner.query(`CREATE TABLE webhook_delivery_attempts (
      delivery_id varchar(36) NOT NULL REFERENCES webhook_deliveries (id),
      attempt integer NOT NULL,
      status_code integer,
      latency_ms integer,
      error varchar(1000),
      attempted_at ${ts} NOT NULL,
      PRIMARY KEY (delivery_id, attempt)
    )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE webhook_delivery_attempts`);
    await queryRunner.query(`DROP TABLE webhook_deliveries`);
    await queryRunner.query(`DROP TABLE webhooks`);
  }
}
