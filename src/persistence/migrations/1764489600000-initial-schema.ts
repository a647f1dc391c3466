import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Connections, jobs, the datasources each job reads (for "is this connection in use?"), and the
 * terminal-event outbox. Partial unique indexes enforce live configName uniqueness and "one active
 * job per request hash" on both engines.
 */
export class InitialSchema1764489600000 implements MigrationInterface {
  name = 'InitialSchema1764489600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const pg = queryRunner.connection.options.type === 'postgres';
    const ts = pg ? 'timestamptz' : 'datetime';
    const json = pg ? 'jsonb' : 'json';
    const big = pg ? 'bigint' : 'integer';

    await queryRunner.query(`CREATE TABLE connections (
      id varchar(36) PRIMARY KEY,
      product_name varchar(100),
      config_name varchar(100) NOT NULL,
      type varchar(20) NOT NULL,
      host varchar(255) NOT NULL,
      port integer NOT NULL,
      database_name varchar(255) NOT NULL,
      schema_name varchar(255),
      user_name varchar(255) NOT NULL,
      password_encrypted text NOT NULL,
      ssl_mode varchar(32),
      ssl_ca_encrypted text,
      ssl_cert_encrypted text,
      ssl_key_encrypted text,
      encryption_key_version varchar(32) NOT NULL,
      metadata ${json},
      created_at ${ts} NOT NULL,
      updated_at ${ts} NOT NULL,
      deleted_at ${ts}
    )`);
    await queryRunner.query(`CREATE UNIQUE INDEX uniq_connections_live_config_name ON connections (config_name) WHERE deleted_at IS NULL`);
    await queryRunner.query(`CREATE INDEX idx_connections_created_at ON connections (created_at)`);

    await queryRunner.query(`CREATE TABLE jobs (
      id varchar(36) PRIMARY KEY,
      status varchar(16) NOT NULL,
      request_hash varchar(64) NOT NULL,
      dedup_key varchar(64),
      metadata ${json} NOT NULL,
      mapped_fields ${json} NOT NULL,
      filters ${json},
      limits ${json},
      created_at ${ts} NOT NULL,
      updated_at ${ts} NOT NULL,
      started_at ${ts},
      completed_at ${ts},
      attempts integer NOT NULL DEFAULT 0,
      worker_id varchar(128),
      lease_expires_at ${ts},
      result_path text,
      result_hmac varchar(64),
      result_sha256 varchar(64),
      result_size_bytes ${big},
      result_row_count ${big},
      result_row_counts ${json},
      error ${json}
    )`);
    // Holds the request hash while the job can answer duplicates (not failed, not released after the
    // window): the unique index makes concurrent identical requests create exactly one job.
    await queryRunner.query(`CREATE UNIQUE INDEX uniq_jobs_dedup_key ON jobs (dedup_key)`);
    await queryRunner.query(`CREATE INDEX idx_jobs_request_hash_created_at ON jobs (request_hash, created_at)`);
    await queryRunner.query(`CREATE INDEX idx_jobs_status_lease ON jobs (status, lease_expires_at)`);

    await queryRunner.query(`CREATE TABLE job_datasources (
      job_id varchar(36) NOT NULL REFERENCES jobs (id) ON DELETE CASCADE,
      config_name varchar(100) NOT NULL,
      PRIMARY KEY (job_id, config_name)
    )`);
    await queryRunner.query(`CREATE INDEX idx_job_datasources_config_name ON job_datasources (config_name)`);

    await queryRunner.query(`CREATE TABLE outbox_events (
      id varchar(100) PRIMARY KEY,
      job_id varchar(36) NOT NULL,
      event_type varchar(32) NOT NULL,
      payload ${json} NOT NULL,
      created_at ${ts} NOT NULL,
      published_at ${ts},
      attempts integer NOT NULL DEFAULT 0,
      next_attempt_at ${ts},
      last_error text
    )`);
    await queryRunner.query(`CREATE INDEX idx_outbox_unpublished ON outbox_events (published_at, next_attempt_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['outbox_events', 'job_datasources', 'jobs', 'connections']) {
      await queryRunner.query(`DROP TABLE ${table}`);
    }
  }
}
