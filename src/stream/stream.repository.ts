import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, type EntityManager, type QueryDeepPartialEntity } from 'typeorm';
import { mergeMarks } from '../engine/incremental/stream-marks.js';
import { sqlParameters } from '../persistence/sql-parameters.js';
import { inTransaction } from '../persistence/transactions.js';
import { movedTable, type MarksCommit } from './marks-commit.js';
import { STREAM_ENTITY, type StoredMarks, type StreamRecord } from './stream.entity.js';
import { marksMoved, streamBusy } from './stream.error.js';

/** A job of a stream that is pending or processing. */
export interface ActiveStreamJob {
  readonly id: string;
  readonly status: string;
}

/**
 * The streams table. Marks change in three ways only: the commit of a job of the stream, inside
 * the transaction that completes the job; PUT …/marks; DELETE (a reset). The last two are refused
 * while a job of the stream is active, and a job whose marks moved under it anyway (a PUT between
 * its submission and its start) fails at its commit instead of overwriting them.
 */
@Injectable()
export class StreamRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  find(productName: string, name: string): Promise<StreamRecord | null> {
    return this.dataSource.getRepository<StreamRecord>(STREAM_ENTITY).findOneBy({ productName, name });
  }

  /** One page in (product, name) order; `productNames` undefined is every product, empty is none. */
  async list(
    productNames: readonly string[] | undefined,
    window: { readonly skip: number; readonly take: number },
  ): Promise<{ items: StreamRecord[]; total: number }> {
    const query = this.dataSource
      .getRepository<StreamRecord>(STREAM_ENTITY)
      .createQueryBuilder('s')
      .orderBy('s.product_name', 'ASC')
      .addOrderBy('s.name', 'ASC')
      .skip(window.skip)
      .take(window.take);
    if (productNames !== undefined) {
      if (productNames.length === 0) query.andWhere('1 = 0');
      else query.andWhere('s.product_name IN (:...productNames)', { productNames: [...productNames] });
    }
    const [items, total] = await query.getManyAndCount();
    return { items, total };
  }

  /** The pending or processing job of a stream (the partial unique index allows one at most). */
  async activeJob(productName: string, name: string, manager: EntityManager = this.dataSource.manager): Promise<ActiveStreamJob | null> {
    const parameters = sqlParameters(manager.connection);
    const rows: ActiveStreamJob[] = await manager.query(
      `SELECT id, status FROM jobs
       WHERE product_name = ${parameters.bind(productName)} AND stream_name = ${parameters.bind(name)}
         AND status IN ('pending', 'processing')
       LIMIT 1`,
      parameters.values,
    );
    return rows[0] ?? null;
  }

  /** PUT: the stream's marks replaced wholesale, the stream created if absent; 409 FET-1111 while a job of it is active. */
  async replaceMarks(productName: string, name: string, marks: StoredMarks, now: Date): Promise<StreamRecord> {
    return inTransaction(this.dataSource, async (manager) => {
      await this.assertIdle(manager, productName, name);
      await manager
        .getRepository<StreamRecord>(STREAM_ENTITY)
        .createQueryBuilder()
        .insert()
        .values({ productName, name, marks, lastJobId: null, createdAt: now, updatedAt: now } as QueryDeepPartialEntity<StreamRecord>)
        .orUpdate(['marks', 'last_job_id', 'updated_at'], ['product_name', 'name'])
        .execute();
      return (await manager.getRepository<StreamRecord>(STREAM_ENTITY).findOneBy({ productName, name })) as StreamRecord;
    });
  }

  /** DELETE: the stream is gone, so its next job reads every table from its start; false when there was none. */
  async remove(productName: string, name: string): Promise<boolean> {
    return inTransaction(this.dataSource, async (manager) => {
      await this.assertIdle(manager, productName, name);
      const deleted = await manager.getRepository<StreamRecord>(STREAM_ENTITY).delete({ productName, name });
      return (deleted.affected ?? 0) > 0;
    });
  }

  /**
   * The commit of a job's marks, run inside the transaction that completes the job (after its
   * claim is confirmed, before its result is published). The stream's row is locked, and each of
   * the job's cursor tables must still have the mark the job started from (or still none); then the
   * new marks are merged in. Throws FET-1112 otherwise, which rolls the whole completion back.
   */
  async commitMarks(manager: EntityManager, commit: MarksCommit, now: Date): Promise<void> {
    const { productName, stream: name, jobId } = commit;
    const current = await this.locked(manager, productName, name);
    const moved = movedTable(current?.marks, commit);
    if (moved !== undefined) throw marksMoved(name, moved);
    const streams = manager.getRepository<StreamRecord>(STREAM_ENTITY);
    const marks = mergeMarks(current?.marks ?? {}, commit.outcome.marks) as StoredMarks;
    if (current) {
      await streams.update({ productName, name }, { marks, lastJobId: jobId, updatedAt: now } as QueryDeepPartialEntity<StreamRecord>);
      return;
    }
    // No row to lock: a PUT creating one meanwhile makes this insert a no-op, and the job's marks moved.
    await streams
      .createQueryBuilder()
      .insert()
      .values({ productName, name, marks, lastJobId: jobId, createdAt: now, updatedAt: now } as QueryDeepPartialEntity<StreamRecord>)
      .orIgnore()
      .execute();
    if ((await this.locked(manager, productName, name))?.lastJobId !== jobId) throw marksMoved(name, 'the stream was created meanwhile');
  }

  /** 409 FET-1111 while a job of the stream is pending or processing. */
  private async assertIdle(manager: EntityManager, productName: string, name: string): Promise<void> {
    const active = await this.activeJob(productName, name, manager);
    if (active) throw streamBusy(name, active);
  }

  /** The stream's row, locked until the transaction ends (PostgreSQL; SQLite runs one transaction at a time). */
  private locked(manager: EntityManager, productName: string, name: string): Promise<StreamRecord | null> {
    const query = manager
      .getRepository<StreamRecord>(STREAM_ENTITY)
      .createQueryBuilder('s')
      .where('s.product_name = :productName AND s.name = :name', { productName, name });
    if (manager.connection.options.type === 'postgres') query.setLock('pessimistic_write');
    return query.getOne();
  }
}
