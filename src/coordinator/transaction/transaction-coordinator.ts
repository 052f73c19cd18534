/**
 * The transaction coordinator of one `__transaction_state` partition: Kafka's
 * `TransactionCoordinator` + `TransactionStateManager` for the transactional ids that hash to it, as
 * a deterministic state machine the `CoordinatorRuntime` runs (no sockets, no clock of its own:
 * time comes in as `now`).
 *
 * - Each operation returns `{ records, response, released }`. Its state change is applied at once
 *   and answered once `records` are durable; if the append fails the runtime drops the shard and
 *   rebuilds it from the log, so Kafka's "pending transition" only remains where it lasts: a
 *   transaction in Prepare* is writing its markers, and every request that would change it answers
 *   CONCURRENT_TRANSACTIONS, as in Kafka.
 * - `released` carries marker jobs: a transaction that reached Prepare* needs its markers written to
 *   every partition. The service writes them (retrying) and then runs `completeTransaction`.
 * - Operations that may need a new producer id (a new transactional id, an exhausted epoch) answer
 *   `NEEDS_PRODUCER_ID` when not given one: the caller allocates it outside and runs them again, so
 *   that replay never allocates.
 * - `tick` aborts transactions past their timeout, removes idle expired ids, and — once after a
 *   load — hands out the marker jobs of every transaction found in Prepare*.
 *
 * Main thread; not thread-safe.
 */
import { KafkaError, kafkaErrorCode } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import type { DescribeTransactionsResponseTransactionStateInput } from '@sluice/protocol/messages/api/65-describe-transactions.js';
import type { ListTransactionsResponseTransactionStateInput } from '@sluice/protocol/messages/api/66-list-transactions.js';
import type { CoordinatorRecord } from '../runtime/coordinator-log.js';
import type { CoordinatorShard, ShardResult } from '../runtime/coordinator-runtime.js';
import { DEFAULT_TRANSACTION_COORDINATOR_CONFIG, type TransactionCoordinatorConfig } from './config.js';
import type { ListFilter } from './list-filter.js';
import { decodeTransactionRecord, transactionRecord, transactionTombstone } from './records.js';
import { containsAll, contains, groupByTopic } from './topic-partitions.js';
import {
  MAX_PRODUCER_EPOCH,
  NO_PRODUCER_EPOCH,
  NO_PRODUCER_ID,
  type TransactionMetadata,
  addPartitions,
  bumpEpoch,
  complete,
  expire,
  fencedEpoch,
  isEpochExhausted,
  newTransaction,
  prepareEnd,
  rotateProducerId,
  supportsEpochBump,
} from './transaction-metadata.js';
import { TransactionState, isIdle, isPreparing, stateName } from './transaction-state.js';
import type { TopicPartition } from '@sluice/protocol/common/topic-partition.js';

/** One transaction's end, to be written to each of its partitions before it completes. */
export interface MarkerJob {
  readonly transactionalId: string;
  readonly producerId: bigint;
  readonly producerEpoch: number;
  readonly commit: boolean;
  readonly transactionVersion: number;
  readonly partitions: readonly TopicPartition[];
}

export interface InitProducerIdRequest {
  readonly transactionalId: string;
  readonly transactionTimeoutMs: number;
  /** KIP-360 (v3+): the producer id and epoch the producer has, or -1 and -1. */
  readonly producerId: bigint;
  readonly producerEpoch: number;
}

export interface ProducerIdAndEpoch {
  readonly errorCode: number;
  readonly producerId: bigint;
  readonly producerEpoch: number;
}

export interface AddPartitionsRequest {
  readonly transactionalId: string;
  readonly producerId: bigint;
  readonly producerEpoch: number;
  readonly partitions: readonly TopicPartition[];
  /** 2 for a KIP-890 part 2 producer (the partition leader adds its partitions for it). */
  readonly clientTransactionVersion: number;
}

export interface EndTxnRequest {
  readonly transactionalId: string;
  readonly producerId: bigint;
  readonly producerEpoch: number;
  readonly commit: boolean;
  /** 2 from EndTxn v5+: the epoch is bumped at the end of the transaction. */
  readonly clientTransactionVersion: number;
}

export type PartitionResult = TopicPartition & { readonly errorCode: number };

/** The operation needs a producer id it was not given: allocate one and run it again with it. */
export const NEEDS_PRODUCER_ID = Symbol('needs a producer id');
export type NeedsProducerId = typeof NEEDS_PRODUCER_ID;

type Result<R> = ShardResult<R, MarkerJob>;

/** Records and marker jobs gathered while one operation or tick runs. */
interface Effects {
  readonly records: CoordinatorRecord[];
  readonly jobs: MarkerJob[];
}

const FAILED: Omit<ProducerIdAndEpoch, 'errorCode'> = { producerId: NO_PRODUCER_ID, producerEpoch: NO_PRODUCER_EPOCH };

export class TransactionCoordinator implements CoordinatorShard<MarkerJob> {
  private readonly config: TransactionCoordinatorConfig;
  private readonly txns = new Map<string, TransactionMetadata>();
  /** Set by `loaded` when transactions were found in Prepare*: their marker jobs go out on the next tick. */
  private resumeAt: number | null = null;
  private nextAbortSweep: number | null = null;
  private nextExpirySweep: number | null = null;

  constructor(config: Partial<TransactionCoordinatorConfig> = {}) {
    this.config = { ...DEFAULT_TRANSACTION_COORDINATOR_CONFIG, ...config };
  }

  transaction(transactionalId: string): TransactionMetadata | undefined {
    return this.txns.get(transactionalId);
  }

  transactions(): TransactionMetadata[] {
    return [...this.txns.values()];
  }

  initProducerId(request: InitProducerIdRequest, allocated: bigint | null, now: number): Result<ProducerIdAndEpoch | NeedsProducerId> {
    return this.write(
      (fx) => this.init(request, allocated, now, fx),
      (errorCode) => ({ errorCode, ...FAILED }),
    );
  }

  private init(request: InitProducerIdRequest, allocated: bigint | null, now: number, fx: Effects): ProducerIdAndEpoch | NeedsProducerId {
    const timeoutMs = request.transactionTimeoutMs;
    if (timeoutMs <= 0 || timeoutMs > this.config.transactionMaxTimeoutMs) {
      throw new KafkaError(
        ErrorCode.INVALID_TRANSACTION_TIMEOUT,
        `transaction timeout ${timeoutMs} ms is not in (0, ${this.config.transactionMaxTimeoutMs}]`,
      );
    }
    const expected = expectedProducer(request);
    const existing = this.txns.get(request.transactionalId);
    if (existing === undefined && allocated === null) return NEEDS_PRODUCER_ID;
    const m = existing ?? newTransaction(request.transactionalId, allocated!, timeoutMs, now);
    if (isPreparing(m.state)) throw concurrent(m);
    if (expected !== null && !isKnownProducer(m, expected)) {
      throw new KafkaError(ErrorCode.PRODUCER_FENCED, `producer ${expected.producerId} is not the producer of ${m.transactionalId}`);
    }
    if (m.state === TransactionState.Ongoing) {
      // The open transaction is aborted first; the producer retries and gets its epoch then.
      this.fenceAndAbort(m, now, fx);
      return { errorCode: ErrorCode.CONCURRENT_TRANSACTIONS, ...FAILED };
    }
    let next: TransactionMetadata;
    if (isEpochExhausted(m.producerEpoch) && (expected === null || expected.producerEpoch === m.producerEpoch)) {
      if (allocated === null) return NEEDS_PRODUCER_ID;
      next = rotateProducerId(m, allocated, timeoutMs, now, expected !== null);
    } else {
      next = bumpEpoch(m, timeoutMs, expected?.producerEpoch ?? null, now);
    }
    this.commit(next, fx);
    return { errorCode: ErrorCode.NONE, producerId: next.producerId, producerEpoch: next.producerEpoch };
  }

  /** AddPartitionsToTxn from a client (v0-3, v4+ without verifyOnly), or a partition leader for a TV2 producer; AddOffsetsToTxn. */
  addPartitions(request: AddPartitionsRequest, now: number): Result<number> {
    return this.write(
      (fx) => {
        const m = this.ownTransaction(request.transactionalId, request.producerId, request.producerEpoch, true);
        if (m.state === TransactionState.Ongoing && containsAll(m.partitions, request.partitions)) return ErrorCode.NONE;
        this.commit(addPartitions(m, request.partitions, now, request.clientTransactionVersion), fx);
        return ErrorCode.NONE;
      },
      (errorCode) => errorCode,
    );
  }

  /**
   * AddPartitionsToTxn with verifyOnly (KIP-890 part 1): may this producer write these partitions
   * in its open transaction? A partition the transaction does not hold answers TRANSACTION_ABORTABLE.
   */
  verifyPartitions(request: Omit<AddPartitionsRequest, 'clientTransactionVersion'>): PartitionResult[] {
    try {
      const m = this.ownTransaction(request.transactionalId, request.producerId, request.producerEpoch, false);
      if (isPreparing(m.state)) throw concurrent(m);
      return request.partitions.map((tp) => ({
        ...tp,
        errorCode: contains(m.partitions, tp) ? ErrorCode.NONE : ErrorCode.TRANSACTION_ABORTABLE,
      }));
    } catch (err) {
      const errorCode = kafkaErrorCode(err);
      return request.partitions.map((tp) => ({ ...tp, errorCode }));
    }
  }

  /** The metadata of a request's producer; `pendingFirst`: Kafka checks a pending transition before the producer (AddPartitions). */
  private ownTransaction(transactionalId: string, producerId: bigint, producerEpoch: number, pendingFirst: boolean): TransactionMetadata {
    const m = this.txns.get(transactionalId);
    if (m === undefined) throw new KafkaError(ErrorCode.INVALID_PRODUCER_ID_MAPPING, `unknown transactional id ${transactionalId}`);
    if (pendingFirst && isPreparing(m.state)) throw concurrent(m);
    if (m.producerId !== producerId)
      throw new KafkaError(ErrorCode.INVALID_PRODUCER_ID_MAPPING, `producer id ${producerId} is not the one of ${transactionalId}`);
    if (m.producerEpoch !== producerEpoch)
      throw new KafkaError(ErrorCode.PRODUCER_FENCED, `epoch ${producerEpoch} is not the current ${m.producerEpoch} of ${transactionalId}`);
    return m;
  }

  /**
   * EndTxn. The answer comes once the decision (Prepare*) is durable; markers follow. A TV2 answer
   * carries the producer id and epoch the producer continues with.
   */
  endTxn(request: EndTxnRequest, allocated: bigint | null, now: number): Result<ProducerIdAndEpoch | NeedsProducerId> {
    return this.write(
      (fx) =>
        supportsEpochBump(request.clientTransactionVersion) ? this.endTv2(request, allocated, now, fx) : this.endTv1(request, now, fx),
      (errorCode) => ({ errorCode, ...FAILED }),
    );
  }

  private endTv1(request: EndTxnRequest, now: number, fx: Effects): ProducerIdAndEpoch {
    const m = this.txns.get(request.transactionalId);
    if (m === undefined || m.producerId !== request.producerId)
      throw new KafkaError(
        ErrorCode.INVALID_PRODUCER_ID_MAPPING,
        `producer id ${request.producerId} is not the one of ${request.transactionalId}`,
      );
    if (request.producerEpoch !== m.producerEpoch)
      throw new KafkaError(ErrorCode.PRODUCER_FENCED, `epoch ${request.producerEpoch} is not the current ${m.producerEpoch}`);
    if (isPreparing(m.state)) throw concurrent(m);
    if (m.state === TransactionState.Ongoing) {
      this.commit(prepareEnd(m, request.commit, 0, NO_PRODUCER_ID, now, false), fx);
      return { errorCode: ErrorCode.NONE, ...FAILED };
    }
    // A retry of an EndTxn already decided the same way succeeds; anything else is out of place.
    const decided = m.state === TransactionState.CompleteCommit ? true : m.state === TransactionState.CompleteAbort ? false : null;
    if (decided === request.commit) return { errorCode: ErrorCode.NONE, ...FAILED };
    throw invalidState(m, request.commit);
  }

  /**
   * TV2: the epoch in the request says which transaction it ends. The current epoch ends the open
   * one (or aborts an idle id); one below it — or the last epoch of a producer id that ran out — is
   * a retry of the EndTxn that ended the last one, answered again if it asked the same.
   *
   * While the last transaction's markers are still being written, the current epoch is the next
   * transaction's, ended before any of its records reached a partition (the Java producer aborting
   * right after its sends): Kafka fences the producer there, fatally for it; Sluice answers
   * CONCURRENT_TRANSACTIONS, which the producer retries until the markers are written.
   */
  private endTv2(request: EndTxnRequest, allocated: bigint | null, now: number, fx: Effects): ProducerIdAndEpoch | NeedsProducerId {
    const m = this.txns.get(request.transactionalId);
    if (m === undefined) throw new KafkaError(ErrorCode.INVALID_PRODUCER_ID_MAPPING, `unknown transactional id ${request.transactionalId}`);
    const retryOnOverflow =
      m.prevProducerId === request.producerId && request.producerEpoch === MAX_PRODUCER_EPOCH - 1 && m.producerEpoch === 0;
    const retryOnEpochBump = m.producerEpoch === request.producerEpoch + 1;
    const isRetry = retryOnEpochBump || retryOnOverflow;
    const current = request.producerEpoch === m.producerEpoch;
    const validEpoch = isPreparing(m.state)
      ? retryOnEpochBump || current
      : isIdle(m.state) && m.state !== TransactionState.Empty
        ? isRetry || current
        : current;
    if (m.producerId !== request.producerId && !retryOnOverflow)
      throw new KafkaError(
        ErrorCode.INVALID_PRODUCER_ID_MAPPING,
        `producer id ${request.producerId} is not the one of ${request.transactionalId}`,
      );
    if (!validEpoch)
      throw new KafkaError(
        ErrorCode.PRODUCER_FENCED,
        `epoch ${request.producerEpoch} does not end a transaction of ${request.transactionalId} (epoch ${m.producerEpoch})`,
      );
    if (isPreparing(m.state)) throw concurrent(m);
    const end = (commit: boolean, noPartitionAdded: boolean): ProducerIdAndEpoch | NeedsProducerId => {
      const exhausted = isEpochExhausted(m.producerEpoch);
      if (exhausted && allocated === null) return NEEDS_PRODUCER_ID;
      const prepared = prepareEnd(
        m,
        commit,
        request.clientTransactionVersion,
        exhausted ? allocated! : NO_PRODUCER_ID,
        now,
        noPartitionAdded,
      );
      this.commit(prepared, fx);
      const after = complete(prepared, now);
      return { errorCode: ErrorCode.NONE, producerId: after.producerId, producerEpoch: after.producerEpoch };
    };
    const again: ProducerIdAndEpoch = { errorCode: ErrorCode.NONE, producerId: m.producerId, producerEpoch: m.producerEpoch };
    switch (m.state) {
      case TransactionState.Ongoing:
        return end(request.commit, false);
      case TransactionState.CompleteCommit:
        if (request.commit) {
          if (isRetry) return again;
          throw invalidState(m, true);
        }
        if (isRetry) throw invalidState(m, false);
        return end(false, true);
      case TransactionState.CompleteAbort:
        if (request.commit) throw invalidState(m, true);
        return isRetry ? again : end(false, true);
      case TransactionState.Empty:
        if (request.commit) throw invalidState(m, true);
        return end(false, true);
      default:
        throw new Error(`transactional id ${m.transactionalId} found in state ${stateName(m.state)}`);
    }
  }

  /** Every marker of the job is written: the transaction completes, unless it moved on meanwhile. */
  completeTransaction(job: MarkerJob, now: number): Result<void> {
    const m = this.txns.get(job.transactionalId);
    const fx: Effects = { records: [], jobs: [] };
    const same =
      m !== undefined &&
      m.state === (job.commit ? TransactionState.PrepareCommit : TransactionState.PrepareAbort) &&
      m.producerId === job.producerId &&
      m.producerEpoch === job.producerEpoch;
    if (same) this.commit(complete(m, now), fx);
    return { records: fx.records, response: undefined, released: fx.jobs };
  }

  describe(transactionalId: string): DescribeTransactionsResponseTransactionStateInput {
    const m = this.txns.get(transactionalId);
    if (m === undefined) return { transactionalId, errorCode: ErrorCode.TRANSACTIONAL_ID_NOT_FOUND };
    return {
      transactionalId,
      errorCode: ErrorCode.NONE,
      transactionState: stateName(m.state),
      transactionTimeoutMs: m.txnTimeoutMs,
      transactionStartTimeMs: BigInt(m.txnStartTimestamp),
      producerId: m.producerId,
      producerEpoch: m.producerEpoch,
      topics: groupByTopic(m.partitions).map((g) => ({ topic: g.topic, partitions: g.partitions })),
    };
  }

  list(filter: ListFilter, now: number): ListTransactionsResponseTransactionStateInput[] {
    return [...this.txns.values()]
      .filter(
        (m) =>
          (filter.producerIds.size === 0 || filter.producerIds.has(m.producerId)) &&
          (filter.states === null || filter.states.has(m.state)) &&
          (filter.durationMs < 0 || now - m.txnStartTimestamp > filter.durationMs) &&
          (filter.pattern === null || filter.pattern.test(m.transactionalId)),
      )
      .map((m) => ({ transactionalId: m.transactionalId, producerId: m.producerId, transactionState: stateName(m.state) }));
  }

  tick(now: number): Omit<Result<void>, 'response'> {
    const fx: Effects = { records: [], jobs: [] };
    if (this.resumeAt !== null && now >= this.resumeAt) {
      this.resumeAt = null;
      for (const m of this.txns.values()) if (isPreparing(m.state)) fx.jobs.push(markerJobOf(m));
    }
    if (this.nextAbortSweep !== null && now >= this.nextAbortSweep) {
      this.abortTimedOut(now, fx);
      this.nextAbortSweep = now + this.config.abortTimedOutTransactionsIntervalMs;
    }
    if (this.nextExpirySweep !== null && now >= this.nextExpirySweep) {
      this.removeExpired(now, fx);
      this.nextExpirySweep = now + this.config.removeExpiredTransactionalIdsIntervalMs;
    }
    return { records: fx.records, released: fx.jobs };
  }

  nextDeadline(): number | null {
    const deadlines = [this.resumeAt, this.nextAbortSweep, this.nextExpirySweep].filter((d): d is number => d !== null);
    return deadlines.length === 0 ? null : Math.min(...deadlines);
  }

  /** Kafka aborts a transaction open longer than its timeout, fencing its producer with an epoch bump first. */
  private abortTimedOut(now: number, fx: Effects): void {
    for (const m of [...this.txns.values()]) {
      if (m.state === TransactionState.Ongoing && m.txnStartTimestamp + m.txnTimeoutMs < now) this.fenceAndAbort(m, now, fx);
    }
  }

  private removeExpired(now: number, fx: Effects): void {
    for (const m of [...this.txns.values()]) {
      if (isIdle(m.state) && m.txnLastUpdateTimestamp <= now - this.config.transactionalIdExpirationMs) {
        expire(m);
        this.txns.delete(m.transactionalId);
        fx.records.push(transactionTombstone(m.transactionalId));
      }
    }
  }

  /**
   * The coordinator aborts an open transaction itself: the epoch is bumped to fence its producer,
   * and the abort follows the cluster's `transaction.version` (TV2 bumps once more).
   */
  private fenceAndAbort(m: TransactionMetadata, now: number, fx: Effects): void {
    const fenced: TransactionMetadata = { ...m, producerEpoch: fencedEpoch(m), lastProducerEpoch: NO_PRODUCER_EPOCH };
    const level = this.config.transactionVersionLevel();
    this.commit(prepareEnd(fenced, false, supportsEpochBump(level) ? level : 0, NO_PRODUCER_ID, now, false), fx);
  }

  replay(key: Buffer, value: Buffer | null): void {
    const record = decodeTransactionRecord(key, value);
    if (record.type !== 'transaction') return;
    if (record.metadata === null) this.txns.delete(record.transactionalId);
    else this.txns.set(record.transactionalId, record.metadata);
  }

  loaded(now: number): void {
    if ([...this.txns.values()].some((m) => isPreparing(m.state))) this.resumeAt = now;
    this.nextAbortSweep = now + this.config.abortTimedOutTransactionsIntervalMs;
    this.nextExpirySweep = now + this.config.removeExpiredTransactionalIdsIntervalMs;
  }

  /** Nothing is parked here; the service stops the partition's marker writing itself. */
  unload(): MarkerJob[] {
    this.txns.clear();
    this.resumeAt = this.nextAbortSweep = this.nextExpirySweep = null;
    return [];
  }

  /** The new state, its record, and its marker job once it reaches Prepare*. */
  private commit(m: TransactionMetadata, fx: Effects): void {
    this.txns.set(m.transactionalId, m);
    fx.records.push(transactionRecord(m));
    if (isPreparing(m.state)) fx.jobs.push(markerJobOf(m));
  }

  /** Runs a write; a KafkaError it throws becomes the answer `failed` makes of its code (with what was recorded before it). */
  private write<R>(op: (fx: Effects) => R, failed: (errorCode: number) => R): Result<R> {
    const fx: Effects = { records: [], jobs: [] };
    let response: R;
    try {
      response = op(fx);
    } catch (err) {
      response = failed(kafkaErrorCode(err));
    }
    return { records: fx.records, response, released: fx.jobs };
  }
}

function markerJobOf(m: TransactionMetadata): MarkerJob {
  return {
    transactionalId: m.transactionalId,
    producerId: m.producerId,
    producerEpoch: m.producerEpoch,
    commit: m.state === TransactionState.PrepareCommit,
    transactionVersion: m.clientTransactionVersion,
    partitions: m.partitions,
  };
}

/** KIP-360: the producer id and epoch an InitProducerId brings, if any (both -1: none). */
function expectedProducer(request: InitProducerIdRequest): { producerId: bigint; producerEpoch: number } | null {
  if (request.producerId === NO_PRODUCER_ID && request.producerEpoch === NO_PRODUCER_EPOCH) return null;
  if (request.producerId < 0n || request.producerEpoch < 0) {
    throw new KafkaError(
      ErrorCode.INVALID_REQUEST,
      `producer id ${request.producerId} and epoch ${request.producerEpoch} must both be set or both be -1`,
    );
  }
  return { producerId: request.producerId, producerEpoch: request.producerEpoch };
}

/**
 * Whether a KIP-360 producer may recover this id: the id was never initialised, or it is the
 * current producer (its epoch is checked next), or the previous one whose epoch ran out (a retry of
 * the InitProducerId that rotated it).
 */
function isKnownProducer(m: TransactionMetadata, expected: { producerId: bigint; producerEpoch: number }): boolean {
  return (
    m.producerEpoch === NO_PRODUCER_EPOCH ||
    expected.producerId === m.producerId ||
    (expected.producerId === m.prevProducerId && isEpochExhausted(expected.producerEpoch))
  );
}

function concurrent(m: TransactionMetadata): KafkaError {
  return new KafkaError(
    ErrorCode.CONCURRENT_TRANSACTIONS,
    `transactional id ${m.transactionalId} is completing its transaction (${stateName(m.state)})`,
  );
}

function invalidState(m: TransactionMetadata, commit: boolean): KafkaError {
  return new KafkaError(
    ErrorCode.INVALID_TXN_STATE,
    `transactional id ${m.transactionalId} is ${stateName(m.state)}: it cannot ${commit ? 'commit' : 'abort'}`,
  );
}
