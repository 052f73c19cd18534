/**
 * A coordinator's internal topic (`__consumer_offsets`, later `__transaction_state`) as the
 * coordinator runtime uses it: created on first use, appended one batch per group commit, and
 * replayed record by record when a partition's coordinator loads. `InternalTopicLog` turns
 * records into batches and batches back into records; where the partitions live is the
 * `InternalTopicPartitions` port, which the composition root routes to the partition owners.
 *
 * Transactions (TxnOffsetCommit): a transactional write is one batch carrying the producer id and
 * epoch, and the transaction ends with a marker (a control batch) the port appends; a replay
 * hands records over with the producer id of their transactional batch, and markers apart.
 * Main thread.
 */
import { decompress } from '../../native/index.js';
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import {
  ControlRecordType,
  type BatchHeader,
  decodeControlRecordKey,
  encodeRecordBatch,
  isControl,
  isTransactional,
  lastOffsetOf,
  readRecords,
  validateBatches,
} from '@sluice/protocol/records/index.js';
import type { TxnMarker, TxnProducer } from './transaction-marker.js';

export interface CoordinatorRecord {
  key: Buffer;
  /** null: a tombstone. */
  value: Buffer | null;
}

/** Where a replay hands the partition's contents, in offset order. */
export interface ReplaySink {
  /** `producerId`: the producer whose transactional batch holds the record; null outside transactions. `offset`: where the log holds it. */
  record(key: Buffer, value: Buffer | null, producerId: bigint | null, offset: bigint): void;
  /** A transaction's end marker (COMMIT or ABORT) of producer `producerId`. */
  marker(producerId: bigint, producerEpoch: number, commit: boolean): void;
}

/** What the coordinator runtime needs of its topic. */
export interface CoordinatorLog {
  /** True once the topic exists (it is created on the first coordinator operation, as in Kafka). */
  exists(): boolean;
  /** Creates the topic if it does not exist yet. */
  ensureTopic(): Promise<void>;
  /**
   * Appends the records as one batch (transactional, of `producer`, when given); resolves with the
   * Kafka error code. `onAppended` learns the batch's base offset once it is durable (the share
   * coordinator prunes its topic by the offsets of the records it still needs).
   */
  append(
    partition: number,
    records: readonly CoordinatorRecord[],
    producer?: TxnProducer,
    onAppended?: (baseOffset: bigint) => void,
  ): Promise<number>;
  /** Appends a transaction's end marker; resolves with the Kafka error code. */
  appendMarker(partition: number, marker: TxnMarker): Promise<number>;
  /** Hands every record and transaction marker of the partition to `sink` in offset order; resolves with the error code. */
  replay(partition: number, sink: ReplaySink): Promise<number>;
}

/** The topic's partitions, wherever they are: every answer carries a Kafka error code. */
export interface InternalTopicPartitions {
  exists(): boolean;
  create(
    numPartitions: number,
    configs: ReadonlyMap<string, string>,
  ): Promise<{ readonly errorCode: number; readonly errorMessage: string | null }>;
  /** Appends one record batch as the partition's leader, with acks=all; `onAppended` learns its base offset once it is committed. */
  append(partition: number, batch: Buffer, onAppended?: (baseOffset: bigint) => void): Promise<number>;
  /** Appends one transaction marker (a control batch) as the partition's leader, acks=all; resolves with the Kafka error code. */
  appendMarker(partition: number, marker: TxnMarker): Promise<number>;
  logStartOffset(partition: number): Promise<{ readonly errorCode: number; readonly offset: bigint }>;
  /**
   * Record batches from `offset` up to the leader's log end, at most about `maxBytes` (at least
   * one batch), with where the log ends and at which leader epoch.
   */
  read(
    partition: number,
    offset: bigint,
    maxBytes: number,
  ): Promise<{ readonly errorCode: number; readonly logEndOffset: bigint; readonly leaderEpoch: number; readonly bytes: Buffer }>;
  /** Resolves with NONE once the leader's high watermark has reached `offset` at `leaderEpoch`, else with the error (a timeout, a lost leadership). */
  awaitCommitted(partition: number, leaderEpoch: number, offset: bigint): Promise<number>;
}

export interface InternalTopicSpec {
  readonly name: string;
  readonly numPartitions: number;
  /** Overrides the topic is created with (compacted, as Kafka creates its internal topics). */
  readonly configs: ReadonlyMap<string, string>;
}

/** Kafka answers coordinator lookups with COORDINATOR_NOT_AVAILABLE while its topic cannot be created (too few brokers for its replication factor). */
export class InternalTopicCreateError extends KafkaError {
  constructor(message: string) {
    super(ErrorCode.COORDINATOR_NOT_AVAILABLE, message);
    this.name = 'InternalTopicCreateError';
  }
}

/** Replay reads this much at a time; it must stay well below the worker rings' capacity. */
const REPLAY_CHUNK_BYTES = 1024 * 1024;

export class InternalTopicLog implements CoordinatorLog {
  private creating: Promise<void> | null = null;

  constructor(
    private readonly spec: InternalTopicSpec,
    private readonly partitions: InternalTopicPartitions,
  ) {}

  exists(): boolean {
    return this.partitions.exists();
  }

  ensureTopic(): Promise<void> {
    // The topic is in the metadata before its partitions are open: an operation arriving in
    // between waits for the creation too, or its replay would find no partition.
    if (this.creating !== null) return this.creating;
    if (this.exists()) return Promise.resolve();
    this.creating = this.create().finally(() => (this.creating = null));
    return this.creating;
  }

  private async create(): Promise<void> {
    const created = await this.partitions.create(this.spec.numPartitions, this.spec.configs);
    if (created.errorCode !== ErrorCode.NONE && created.errorCode !== ErrorCode.TOPIC_ALREADY_EXISTS) {
      throw new InternalTopicCreateError(`creating ${this.spec.name} failed: ${created.errorMessage ?? created.errorCode}`);
    }
  }

  append(
    partition: number,
    records: readonly CoordinatorRecord[],
    producer?: TxnProducer,
    onAppended?: (baseOffset: bigint) => void,
  ): Promise<number> {
    const timestamp = BigInt(Date.now());
    const batchRecords = records.map((r) => ({ key: r.key, value: r.value, headers: [], timestamp }));
    // Kafka's coordinators write base sequence 0: the partition does not check their sequences.
    const transactional =
      producer === undefined
        ? {}
        : { producerId: producer.producerId, producerEpoch: producer.producerEpoch, baseSequence: 0, isTransactional: true };
    return this.partitions.append(partition, encodeRecordBatch({ ...transactional, records: batchRecords }), onAppended);
  }

  appendMarker(partition: number, marker: TxnMarker): Promise<number> {
    return this.partitions.appendMarker(partition, marker);
  }

  /**
   * Replays the whole of the leader's log, then waits until all of it is committed: a leader new to
   * the partition holds records the old one had committed above its own, lagging, high watermark
   * (they are acknowledged: stopping at the high watermark would lose them), and the state is
   * served only once no failover can take them back.
   */
  async replay(partition: number, sink: ReplaySink): Promise<number> {
    const start = await this.partitions.logStartOffset(partition);
    if (start.errorCode !== ErrorCode.NONE) return start.errorCode;
    let offset = start.offset;
    for (;;) {
      const chunk = await this.partitions.read(partition, offset, REPLAY_CHUNK_BYTES);
      if (chunk.errorCode !== ErrorCode.NONE) return chunk.errorCode;
      if (chunk.bytes.length === 0) return this.partitions.awaitCommitted(partition, chunk.leaderEpoch, offset);
      const scan = validateBatches(chunk.bytes);
      if (!scan.ok) return scan.error.code;
      if (scan.batches.length === 0) return ErrorCode.CORRUPT_MESSAGE;
      for (const header of scan.batches) {
        replayBatch(chunk.bytes, header, offset, sink);
        offset = lastOffsetOf(header) + 1n;
      }
      if (offset >= chunk.logEndOffset) return this.partitions.awaitCommitted(partition, chunk.leaderEpoch, offset);
    }
  }
}

/** One batch's records from `from` on: data records with their transaction's producer, end markers apart. */
function replayBatch(bytes: Buffer, header: BatchHeader, from: bigint, sink: ReplaySink): void {
  const control = isControl(header.attributes);
  const producerId = isTransactional(header.attributes) ? header.producerId : null;
  for (const record of readRecords(bytes, header, { decompress })) {
    if (record.offset < from) continue;
    if (!control) {
      if (record.key !== null) sink.record(record.key, record.value, producerId, record.offset);
      continue;
    }
    // Other control records (leader changes) say nothing to a coordinator.
    const type = decodeControlRecordKey(record.key, header.start).type;
    if (type === ControlRecordType.Commit || type === ControlRecordType.Abort)
      sink.marker(header.producerId, header.producerEpoch, type === ControlRecordType.Commit);
  }
}
