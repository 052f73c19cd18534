/**
 * What a partition remembers about one producer id (Kafka's `ProducerStateEntry` and
 * `BatchMetadata`): its current epoch, the metadata of its last five batches (enough to answer
 * the retries of a producer with `max.in.flight.requests.per.connection` <= 5 with the original
 * offsets), and the timestamp that producer expiry is measured from. The coordinator epoch and
 * the first offset of an open transaction are carried as they are found (-1 until Sluice has
 * transactions) so that snapshots round-trip.
 *
 * In memory only; persisted through `producer-snapshot.ts`. Owned by the partition's worker.
 */
import { BatchLayout, isControl } from '../../protocol/records/index.js';
import type { Offset } from '../offsets.js';
import { decrementSequence, incrementSequence } from './sequence.js';

/** Kafka's `ProducerStateEntry.NUM_BATCHES_TO_RETAIN`. */
export const NUM_BATCHES_TO_RETAIN = 5;
export const NO_PRODUCER_EPOCH = BatchLayout.NO_PRODUCER_EPOCH;
export const NO_SEQUENCE = BatchLayout.NO_SEQUENCE;

/** One appended batch of a producer: its sequence range, its offset range and its max timestamp. */
export interface BatchMetadata {
  readonly firstSeq: number;
  readonly lastSeq: number;
  readonly firstOffset: Offset;
  readonly lastOffset: Offset;
  /** `lastOffset - firstOffset` (the batch's `lastOffsetDelta`); also `lastSeq - firstSeq` modulo wrap. */
  readonly offsetDelta: number;
  /** The batch's max timestamp after validation (the append time under LogAppendTime). */
  readonly timestamp: number;
}

export function batchMetadata(lastSeq: number, lastOffset: Offset, offsetDelta: number, timestamp: number): BatchMetadata {
  return {
    firstSeq: decrementSequence(lastSeq, offsetDelta),
    lastSeq,
    firstOffset: (lastOffset - offsetDelta) as Offset,
    lastOffset,
    offsetDelta,
    timestamp,
  };
}

/** The producer fields of a batch header (a `BatchHeader` of the records module is one). */
export interface ProducerBatch {
  readonly producerId: bigint;
  readonly producerEpoch: number;
  readonly baseSequence: number;
  readonly lastOffsetDelta: number;
}

/**
 * Whether a batch updates producer state: it has a producer id and carries data. Control batches
 * (transaction markers) are left to transaction support, which Sluice does not have yet.
 */
export function carriesProducerState(producerId: bigint, attributes: number): boolean {
  return producerId >= 0n && !isControl(attributes);
}

export function lastSequenceOf(batch: ProducerBatch): number {
  return incrementSequence(batch.baseSequence, batch.lastOffsetDelta);
}

/** The read-only face of an entry, for callers that report producer state (DescribeProducers). */
export interface ProducerState {
  readonly producerId: bigint;
  readonly producerEpoch: number;
  readonly lastTimestamp: number;
  readonly lastSeq: number;
  readonly batches: readonly BatchMetadata[];
  readonly coordinatorEpoch: number;
  readonly currentTxnFirstOffset: number;
}

export class ProducerStateEntry implements ProducerState {
  readonly producerId: bigint;
  #producerEpoch: number;
  /** Oldest first, at most NUM_BATCHES_TO_RETAIN, all of the current epoch. */
  #batches: BatchMetadata[] = [];
  #lastTimestamp: number;
  readonly coordinatorEpoch: number;
  readonly currentTxnFirstOffset: number;

  constructor(
    producerId: bigint,
    producerEpoch: number,
    lastTimestamp: number,
    lastBatch: BatchMetadata | null = null,
    coordinatorEpoch = -1,
    currentTxnFirstOffset = -1,
  ) {
    this.producerId = producerId;
    this.#producerEpoch = producerEpoch;
    this.#lastTimestamp = lastTimestamp;
    this.coordinatorEpoch = coordinatorEpoch;
    this.currentTxnFirstOffset = currentTxnFirstOffset;
    if (lastBatch !== null) this.#batches.push(lastBatch);
  }

  /** A producer never seen in this partition (Kafka's `ProducerStateEntry.empty`). */
  static empty(producerId: bigint): ProducerStateEntry {
    return new ProducerStateEntry(producerId, NO_PRODUCER_EPOCH, -1);
  }

  get producerEpoch(): number {
    return this.#producerEpoch;
  }

  get lastTimestamp(): number {
    return this.#lastTimestamp;
  }

  get batches(): readonly BatchMetadata[] {
    return this.#batches;
  }

  /** The newest batch, or null when none is known for the current epoch. */
  get lastBatch(): BatchMetadata | null {
    return this.#batches[this.#batches.length - 1] ?? null;
  }

  get lastSeq(): number {
    return this.lastBatch?.lastSeq ?? NO_SEQUENCE;
  }

  /**
   * Records an appended batch. A new epoch forgets the batches of the old one (their sequences
   * restart at 0); the oldest batch makes room once five are kept.
   */
  addBatch(producerEpoch: number, batch: BatchMetadata): void {
    if (producerEpoch !== this.#producerEpoch) {
      this.#batches = [];
      this.#producerEpoch = producerEpoch;
    }
    if (this.#batches.length === NUM_BATCHES_TO_RETAIN) this.#batches.shift();
    this.#batches.push(batch);
    this.#lastTimestamp = batch.timestamp;
  }

  /** The kept batch with exactly this epoch and sequence range: a retry of a batch already written. */
  findDuplicate(batch: ProducerBatch): BatchMetadata | null {
    if (batch.producerEpoch !== this.#producerEpoch) return null;
    const lastSeq = lastSequenceOf(batch);
    return this.#batches.find((b) => b.firstSeq === batch.baseSequence && b.lastSeq === lastSeq) ?? null;
  }

}
