/** Helpers for the transaction coordinator tests: a shard whose records are kept, short requests, and an in-memory `__transaction_state` (the handler tests' too). */
import type { CoordinatorLog, CoordinatorRecord, ReplaySink } from '../../../../src/coordinator/runtime/coordinator-log.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import type { ShardResult } from '../../../../src/coordinator/runtime/coordinator-runtime.js';
import type { TransactionCoordinatorConfig } from '../../../../src/coordinator/transaction/config.js';
import {
  type MarkerJob,
  NEEDS_PRODUCER_ID,
  type NeedsProducerId,
  type ProducerIdAndEpoch,
  TransactionCoordinator,
} from '../../../../src/coordinator/transaction/transaction-coordinator.js';
import type { TopicPartition } from '@sluice/protocol/common/topic-partition.js';

export const TXN = 'txn-1';
export const TIMEOUT_MS = 60_000;
export const TP0: TopicPartition = { topic: 't', partition: 0 };
export const TP1: TopicPartition = { topic: 't', partition: 1 };
export const OTHER: TopicPartition = { topic: 'u', partition: 3 };

/** A shard that keeps every record it emitted (its log) and every marker job it released. */
export class Harness {
  readonly c: TransactionCoordinator;
  readonly log: CoordinatorRecord[] = [];
  readonly jobs: MarkerJob[] = [];
  /** Producer ids handed out when an operation asks for one. */
  nextProducerId = 1000n;
  allocations = 0;

  constructor(config: Partial<TransactionCoordinatorConfig> = {}) {
    this.c = new TransactionCoordinator(config);
    this.c.loaded(0);
  }

  keep<R>(result: ShardResult<R, MarkerJob> | Omit<ShardResult<R, MarkerJob>, 'response'>): void {
    this.log.push(...result.records);
    this.jobs.push(...result.released);
  }

  /** Runs an operation, allocating a producer id and running it again when it asks, as the service does. */
  private withId(op: (allocated: bigint | null) => ShardResult<ProducerIdAndEpoch | NeedsProducerId, MarkerJob>): ProducerIdAndEpoch {
    let result = op(null);
    this.keep(result);
    if (result.response === NEEDS_PRODUCER_ID) {
      this.allocations++;
      result = op(this.nextProducerId++);
      this.keep(result);
    }
    if (result.response === NEEDS_PRODUCER_ID) throw new Error('asked twice for a producer id');
    return result.response;
  }

  init(now: number, opts: { id?: string; timeoutMs?: number; producerId?: bigint; producerEpoch?: number } = {}): ProducerIdAndEpoch {
    const request = {
      transactionalId: opts.id ?? TXN,
      transactionTimeoutMs: opts.timeoutMs ?? TIMEOUT_MS,
      producerId: opts.producerId ?? -1n,
      producerEpoch: opts.producerEpoch ?? -1,
    };
    return this.withId((allocated) => this.c.initProducerId(request, allocated, now));
  }

  add(
    now: number,
    producer: { producerId: bigint; producerEpoch: number },
    partitions: TopicPartition[],
    opts: { id?: string; tv?: number } = {},
  ): number {
    const result = this.c.addPartitions(
      { transactionalId: opts.id ?? TXN, ...producer, partitions, clientTransactionVersion: opts.tv ?? 0 },
      now,
    );
    this.keep(result);
    return result.response;
  }

  end(
    now: number,
    producer: { producerId: bigint; producerEpoch: number },
    commit: boolean,
    opts: { id?: string; tv?: number } = {},
  ): ProducerIdAndEpoch {
    const request = { transactionalId: opts.id ?? TXN, ...producer, commit, clientTransactionVersion: opts.tv ?? 0 };
    return this.withId((allocated) => this.c.endTxn(request, allocated, now));
  }

  /** Completes the last released marker job (its markers are written). */
  markersWritten(now: number): void {
    const job = this.jobs.pop();
    if (job === undefined) throw new Error('no marker job');
    this.keep(this.c.completeTransaction(job, now));
  }

  state(id = TXN): string | undefined {
    const m = this.c.transaction(id);
    return m === undefined ? undefined : this.c.describe(id).transactionState;
  }
}

/** An in-memory __transaction_state; a replay can be held until the test releases it. */
export class MemoryLog implements CoordinatorLog {
  created = false;
  readonly partitions = new Map<number, CoordinatorRecord[]>();
  holdReplay: Promise<void> | null = null;
  /** How many of the next appends fail (and are not kept). */
  failAppends = 0;

  exists(): boolean {
    return this.created;
  }
  async ensureTopic(): Promise<void> {
    this.created = true;
  }
  async append(partition: number, records: readonly CoordinatorRecord[]): Promise<number> {
    if (this.failAppends > 0) {
      this.failAppends--;
      return ErrorCode.NOT_ENOUGH_REPLICAS;
    }
    const list = this.partitions.get(partition) ?? [];
    list.push(...records);
    this.partitions.set(partition, list);
    return ErrorCode.NONE;
  }
  async appendMarker(): Promise<number> {
    throw new Error('__transaction_state holds no transaction markers');
  }
  async replay(partition: number, sink: ReplaySink): Promise<number> {
    if (this.holdReplay !== null) await this.holdReplay;
    for (const [offset, r] of (this.partitions.get(partition) ?? []).entries()) sink.record(r.key, r.value, null, BigInt(offset));
    return ErrorCode.NONE;
  }
}
