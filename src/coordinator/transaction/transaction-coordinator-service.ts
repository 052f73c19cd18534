/**
 * The transaction coordinators of this broker (main thread): a `TransactionCoordinator` per
 * `__transaction_state` partition this broker leads, run by the generic `CoordinatorRuntime`, and
 * the writing of their markers. A transactional id lives in partition `partitionFor(id)`; a request
 * for an id whose partition this broker does not lead answers NOT_COORDINATOR, and one whose
 * partition is still loading COORDINATOR_LOAD_IN_PROGRESS. Shards load when this broker becomes
 * the partition's leader (`onLeadership`, and on first use of a led partition) and unload when it
 * stops leading, which also stops their marker writing.
 *
 * Producer ids come from `producerIds` outside the shard: an operation that needs one is answered
 * NEEDS_PRODUCER_ID, and run again with a freshly allocated id.
 */
import { KafkaError, kafkaErrorCode } from '@sluice/protocol/common/kafka-error.js';
import type { Logger } from '../../common/logger.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { CONSUMER_OFFSETS_TOPIC, TRANSACTION_STATE_TOPIC } from '@sluice/protocol/internal-topics.js';
import type { DescribeTransactionsResponseTransactionStateInput } from '@sluice/protocol/messages/api/65-describe-transactions.js';
import type { ListTransactionsRequestData, ListTransactionsResponseDataInput } from '@sluice/protocol/messages/api/66-list-transactions.js';
import { partitionFor } from '../group/partition-for.js';
import type { CoordinatorLog } from '../runtime/coordinator-log.js';
import { CoordinatorRuntime, type ShardResult } from '../runtime/coordinator-runtime.js';
import { DEFAULT_TRANSACTION_COORDINATOR_CONFIG, type TransactionCoordinatorConfig } from './config.js';
import { parseListFilter } from './list-filter.js';
import { NO_PRODUCER_EPOCH, NO_PRODUCER_ID } from './transaction-metadata.js';
import {
  type EndTxnRequest,
  type InitProducerIdRequest,
  type MarkerJob,
  NEEDS_PRODUCER_ID,
  type NeedsProducerId,
  type PartitionResult,
  type ProducerIdAndEpoch,
  TransactionCoordinator,
} from './transaction-coordinator.js';
import { type DispatchedMarkers, type TxnMarkerWriter, TxnMarkerSender } from './txn-marker-sender.js';
import type { TopicPartition } from '@sluice/protocol/common/topic-partition.js';

export type { TxnMarkerWriter } from './txn-marker-sender.js';

export interface TransactionCoordinatorServiceOptions {
  readonly log: CoordinatorLog;
  /** `transaction.state.log.num.partitions`. */
  readonly numPartitions: number;
  readonly config: Partial<TransactionCoordinatorConfig>;
  /** Whether this broker leads partition `partition` of `__transaction_state` now. */
  readonly leads: (partition: number) => boolean;
  /** The leader epoch of that partition: the coordinator epoch markers carry. */
  readonly coordinatorEpoch: (partition: number) => number;
  readonly producerIds: { nextProducerId(): Promise<bigint> };
  readonly markers: TxnMarkerWriter;
  /** The `__consumer_offsets` partition of a group (AddOffsetsToTxn). */
  readonly offsetsPartitionFor: (groupId: string) => number;
  readonly logger: Logger;
  readonly clock?: () => number;
}

const FAILED = { producerId: NO_PRODUCER_ID, producerEpoch: NO_PRODUCER_EPOCH };
/** AddOffsetsToTxn comes from TV0/TV1 producers only (TV2 producers commit offsets without it). */
const ADD_OFFSETS_TRANSACTION_VERSION = 0;

export class TransactionCoordinatorService {
  private readonly runtime: CoordinatorRuntime<TransactionCoordinator, MarkerJob>;
  private readonly sender: TxnMarkerSender;
  /** Partitions whose log is being replayed: their requests answer COORDINATOR_LOAD_IN_PROGRESS. */
  private readonly loading = new Set<number>();
  private readonly clock: () => number;

  constructor(private readonly options: TransactionCoordinatorServiceOptions) {
    this.clock = options.clock ?? Date.now;
    const config = { ...DEFAULT_TRANSACTION_COORDINATOR_CONFIG, ...options.config };
    this.sender = new TxnMarkerSender({
      writer: options.markers,
      retryBackoffMs: config.markerRetryBackoffMs,
      coordinates: (p) => options.leads(p),
      onWritten: (job) => this.complete(job),
      logger: options.logger,
    });
    this.runtime = new CoordinatorRuntime({
      topic: TRANSACTION_STATE_TOPIC,
      log: this.trackingLoads(options.log),
      newShard: () => new TransactionCoordinator(config),
      deliver: (job) => this.dispatch(job),
      logger: options.logger,
      clock: this.clock,
    });
  }

  /** The log, noting which partitions are being replayed. */
  private trackingLoads(log: CoordinatorLog): CoordinatorLog {
    return {
      exists: () => log.exists(),
      ensureTopic: () => log.ensureTopic(),
      append: (partition, records, producer) => log.append(partition, records, producer),
      appendMarker: (partition, marker) => log.appendMarker(partition, marker),
      replay: async (partition, sink) => {
        this.loading.add(partition);
        try {
          return await log.replay(partition, sink);
        } finally {
          this.loading.delete(partition);
        }
      },
    };
  }

  partitionOf(transactionalId: string): number {
    return partitionFor(transactionalId, this.options.numPartitions);
  }

  /** The partition of `transactionalId`, if this broker coordinates it and has loaded it. */
  private coordinated(transactionalId: string): number {
    const partition = this.partitionOf(transactionalId);
    // Before `__transaction_state` exists nobody leads it: the first operation creates it here.
    if (this.options.log.exists() && !this.options.leads(partition)) {
      throw new KafkaError(ErrorCode.NOT_COORDINATOR, `this broker does not lead ${TRANSACTION_STATE_TOPIC}-${partition}`);
    }
    if (this.loading.has(partition))
      throw new KafkaError(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, `${TRANSACTION_STATE_TOPIC}-${partition} is loading`);
    return partition;
  }

  /** Follows the leadership of `__transaction_state`: loads the led partitions, unloads (and stops the markers of) the others. */
  onLeadership(): void {
    if (!this.options.log.exists()) return;
    for (let p = 0; p < this.options.numPartitions; p++) {
      // A failed load is logged by the runtime; the next operation on the partition retries it.
      if (this.options.leads(p)) this.runtime.load(p).catch(() => undefined);
      else {
        this.runtime.unload(p);
        this.sender.cancelPartition(p);
      }
    }
  }

  /** Creates `__transaction_state` on first use and loads the id's coordinator if this broker leads it (FindCoordinator). */
  async prepare(transactionalId: string): Promise<void> {
    const partition = this.partitionOf(transactionalId);
    await this.options.log.ensureTopic();
    if (this.options.leads(partition)) await this.runtime.load(partition);
  }

  initProducerId(r: InitProducerIdRequest): Promise<ProducerIdAndEpoch> {
    if (r.transactionalId === '') return Promise.resolve({ errorCode: ErrorCode.INVALID_REQUEST, ...FAILED });
    return this.withProducerId(r.transactionalId, (c, allocated, now) => c.initProducerId(r, allocated, now));
  }

  async addPartitions(r: {
    transactionalId: string;
    producerId: bigint;
    producerEpoch: number;
    partitions: readonly TopicPartition[];
    verifyOnly: boolean;
    clientTransactionVersion: number;
  }): Promise<PartitionResult[]> {
    const all = (errorCode: number): PartitionResult[] =>
      r.partitions.map((tp) => ({ topic: tp.topic, partition: tp.partition, errorCode }));
    if (r.transactionalId === '') return all(ErrorCode.INVALID_REQUEST);
    try {
      const partition = this.coordinated(r.transactionalId);
      if (r.verifyOnly) return await this.runtime.read(partition, (c) => c.verifyPartitions(r));
      return all(await this.runtime.run(partition, (c, now) => c.addPartitions(r, now)));
    } catch (err) {
      return all(kafkaErrorCode(err));
    }
  }

  async addOffsets(r: { transactionalId: string; producerId: bigint; producerEpoch: number; groupId: string }): Promise<number> {
    const offsets = { topic: CONSUMER_OFFSETS_TOPIC, partition: this.options.offsetsPartitionFor(r.groupId) };
    const [result] = await this.addPartitions({
      ...r,
      partitions: [offsets],
      verifyOnly: false,
      clientTransactionVersion: ADD_OFFSETS_TRANSACTION_VERSION,
    });
    return result!.errorCode;
  }

  endTxn(r: EndTxnRequest): Promise<ProducerIdAndEpoch> {
    if (r.transactionalId === '') return Promise.resolve({ errorCode: ErrorCode.INVALID_REQUEST, ...FAILED });
    return this.withProducerId(r.transactionalId, (c, allocated, now) => c.endTxn(r, allocated, now));
  }

  /** Runs an operation that may need a new producer id: without one first, then with one if it asks. */
  private async withProducerId(
    transactionalId: string,
    op: (c: TransactionCoordinator, allocated: bigint | null, now: number) => ShardResult<ProducerIdAndEpoch | NeedsProducerId, MarkerJob>,
  ): Promise<ProducerIdAndEpoch> {
    try {
      const partition = this.coordinated(transactionalId);
      let allocated: bigint | null = null;
      for (;;) {
        const given = allocated;
        const outcome = await this.runtime.run(partition, (c, now) => op(c, given, now));
        if (outcome !== NEEDS_PRODUCER_ID) return outcome;
        allocated = await this.options.producerIds.nextProducerId();
      }
    } catch (err) {
      return { errorCode: kafkaErrorCode(err), ...FAILED };
    }
  }

  describe(transactionalIds: readonly string[]): Promise<DescribeTransactionsResponseTransactionStateInput[]> {
    return Promise.all(
      transactionalIds.map(async (transactionalId): Promise<DescribeTransactionsResponseTransactionStateInput> => {
        if (transactionalId === '') return { transactionalId, errorCode: ErrorCode.INVALID_REQUEST };
        try {
          return await this.runtime.read(this.coordinated(transactionalId), (c) => c.describe(transactionalId));
        } catch (err) {
          return { transactionalId, errorCode: kafkaErrorCode(err) };
        }
      }),
    );
  }

  /** ListTransactions covers every coordinator of this broker: all led partitions are loaded once the topic exists. */
  async list(r: ListTransactionsRequestData): Promise<ListTransactionsResponseDataInput> {
    let parsed: ReturnType<typeof parseListFilter>;
    try {
      parsed = parseListFilter(r);
    } catch (err) {
      return { errorCode: kafkaErrorCode(err) };
    }
    this.onLeadership();
    if (this.loading.size > 0) return { errorCode: ErrorCode.COORDINATOR_LOAD_IN_PROGRESS };
    const now = this.clock();
    const { values, rejected } = await this.runtime.readLoaded((c) => c.list(parsed.filter, now));
    if (rejected.length > 0) return { errorCode: kafkaErrorCode(rejected[0]) };
    return { errorCode: ErrorCode.NONE, unknownStateFilters: parsed.unknownStateFilters, transactionStates: values.flat() };
  }

  /** Shutdown: timers and marker writing stop, the shards unload. */
  close(): void {
    this.sender.close();
    this.runtime.close();
  }

  private dispatch(job: MarkerJob): void {
    const txnPartition = this.partitionOf(job.transactionalId);
    this.sender.send({ ...job, txnPartition, coordinatorEpoch: this.options.coordinatorEpoch(txnPartition) });
  }

  /**
   * Every marker is written: Complete* is appended. If that append fails the runtime drops the
   * shard; it is loaded again at once, and the transaction, still in Prepare* there, gets its
   * markers written again.
   */
  private complete(job: DispatchedMarkers): void {
    const partition = job.txnPartition;
    if (!this.options.leads(partition)) return;
    this.runtime
      .run(partition, (c, now) => c.completeTransaction(job, now))
      .catch((err: unknown) => {
        this.options.logger.warn('completing a transaction failed', { transactionalId: job.transactionalId, error: String(err) });
        if (this.options.leads(partition)) this.runtime.load(partition).catch(() => undefined);
      });
  }
}
