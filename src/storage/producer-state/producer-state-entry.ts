/**
 * What a partition remembers about one producer id (Kafka's `ProducerStateEntry` and
 * `BatchMetadata`): its current epoch, the metadata of its last five batches (enough to answer
 * the retries of a producer with `max.in.flight.requests.per.connection` <= 5 with the original
 * offsets), the timestamp that producer expiry is measured from, the epoch of the transaction
 * coordinator that wrote its last marker, and the first offset of its open transaction (-1: none),
 * which a transactional batch sets and a marker clears.
 *
 * In memory only; persisted through `producer-snapshot.ts`. Owned by the partition's worker.
 */
import { BatchLayout, isControl } from '@sluice/protocol/records/index.js';
import type { Offset } from '@sluice/protocol/common/offsets.js';
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
  /** The batch attributes: the transactional and control bits matter here. */
  readonly attributes: number;
}

/** Whether a batch is producer data (not a control batch) from a producer with an id. */
export function carriesProducerState(producerId: bigint, attributes: number): boolean {
  return producerId >= 0n && !isControl(attributes);
}

/** Whether a batch is a transaction marker or another control batch of a producer. */
export function isProducerControl(producerId: bigint, attributes: number): boolean {
  return producerId >= 0n && isControl(attributes);
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
  #coordinatorEpoch: number;
  #currentTxnFirstOffset: number;

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
    this.#coordinatorEpoch = coordinatorEpoch;
    this.#currentTxnFirstOffset = currentTxnFirstOffset;
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

  get coordinatorEpoch(): number {
    return this.#coordinatorEpoch;
  }

  /** The first offset of the open transaction, or -1. */
  get currentTxnFirstOffset(): number {
    return this.#currentTxnFirstOffset;
  }

  get hasOpenTxn(): boolean {
    return this.#currentTxnFirstOffset >= 0;
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
    this.#updateEpoch(producerEpoch);
    if (this.#batches.length === NUM_BATCHES_TO_RETAIN) this.#batches.shift();
    this.#batches.push(batch);
    this.#lastTimestamp = batch.timestamp;
  }

  /** A transactional batch at `firstOffset` opened a transaction. */
  beginTxn(firstOffset: Offset): void {
    this.#currentTxnFirstOffset = firstOffset;
  }

  /**
   * A transaction marker (Kafka's `ProducerStateEntry.update` for markers): the producer takes the
   * marker's epoch (a new one forgets the old epoch's batches, so sequences restart) and
   * coordinator epoch, and no longer has an open transaction.
   */
  endTxn(producerEpoch: number, coordinatorEpoch: number, timestamp: number): void {
    this.#updateEpoch(producerEpoch);
    this.#coordinatorEpoch = coordinatorEpoch;
    this.#lastTimestamp = timestamp;
    this.#currentTxnFirstOffset = -1;
  }

  #updateEpoch(producerEpoch: number): void {
    if (producerEpoch === this.#producerEpoch) return;
    this.#batches = [];
    this.#producerEpoch = producerEpoch;
  }

  /** The kept batch with exactly this epoch and sequence range: a retry of a batch already written. */
  findDuplicate(batch: ProducerBatch): BatchMetadata | null {
    if (batch.producerEpoch !== this.#producerEpoch) return null;
    const lastSeq = lastSequenceOf(batch);
    return this.#batches.find((b) => b.firstSeq === batch.baseSequence && b.lastSeq === lastSeq) ?? null;
  }
}
