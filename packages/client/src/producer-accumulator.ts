/**
 * The batching producer's record accumulator, after Kafka's `RecordAccumulator`: one queue of
 * batches per partition. A record joins the partition's newest batch while it fits in
 * `batch.size` (a record larger than that gets a batch of its own); otherwise that batch is
 * closed and a new one opened. A partition is sendable when its first batch is full (closed, or
 * at its size limit), when it has waited `linger.ms` since it was opened, or when the caller
 * forces it (flush, or a producer out of buffer memory). Once a leader has a sendable partition,
 * `drain` takes the first batch of every partition that leader holds, up to `max.request.size`
 * per request, as Kafka does: batches that are not yet full ride along for free.
 *
 * Pure bookkeeping: no sockets, no timers; every method takes the time (milliseconds on one
 * monotonic clock) so the tests can drive it.
 */
import { BatchLayout, CompressionType, type RecordHeaderInput } from '@sluice/protocol/records/index.js';

/** What the producer learns about one record once its batch is answered. */
export interface RecordDelivery {
  readonly topic: string;
  readonly partition: number;
  /** -1 with acks=0. */
  readonly offset: bigint;
  /** From `send()` to the acknowledgement (to the socket write with acks=0). */
  readonly latencyMs: number;
}

/** Kafka's send callback: exactly one of error and delivery is null. */
export type DeliveryCallback = (error: Error | null, delivery: RecordDelivery | null) => void;

export interface QueuedRecord {
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: readonly RecordHeaderInput[];
  readonly timestamp: bigint;
  /** When `send()` was called, on the accumulator's clock. */
  readonly sentAt: number;
  readonly callback: DeliveryCallback | null;
}

export interface AccumulatorConfig {
  /** `batch.size`: the bytes a batch may hold before it is closed. */
  readonly batchSize: number;
  readonly lingerMs: number;
  readonly compression: CompressionType;
}

export interface AppendResult {
  /** The partition's first batch can go now (Kafka: more than one batch queued, or the last one full). */
  readonly batchIsFull: boolean;
  readonly newBatchCreated: boolean;
  /** The bytes the record takes in its batch, uncompressed: what buffer memory accounts. */
  readonly sizeInBytes: number;
}

export interface ReadyCheck {
  /** Leaders with at least one sendable partition. */
  readonly readyNodes: ReadonlySet<number>;
  /** When to look again for a batch whose linger (or retry backoff) is still running; Infinity if none. */
  readonly nextCheckDelayMs: number;
  /** Topics with a partition whose leader is unknown: their metadata needs a refresh. */
  readonly unknownLeaderTopics: ReadonlySet<string>;
}

/** Node id of the partition's leader, or undefined when the metadata does not know one. */
export type LeaderLookup = (topic: string, partition: number) => number | undefined;

export class ProducerBatch {
  readonly records: QueuedRecord[] = [];
  /** Set when a record did not fit: nothing more is appended. */
  closed = false;
  /** Sends so far; > 0 means this is a retry. */
  attempts = 0;
  /** A retried batch waits out the backoff before it is drained again. */
  retryAt = 0;
  private recordBytes = 0;

  constructor(
    readonly topic: string,
    readonly partition: number,
    readonly createdAt: number,
    private readonly writeLimit: number,
    private readonly compressed: boolean,
  ) {}

  get sizeInBytes(): number {
    return this.recordBytes;
  }

  /**
   * Kafka's `MemoryRecordsBuilder.estimatedBytesWritten`: the batch header plus the records, the
   * records scaled by the topic's estimated compression ratio (with Kafka's 5% margin).
   */
  estimatedBytes(compressionRatio: number): number {
    const records = this.compressed
      ? Math.floor(this.recordBytes * compressionRatio * COMPRESSION_RATE_ESTIMATION_FACTOR)
      : this.recordBytes;
    return BatchLayout.RECORD_BATCH_OVERHEAD + records;
  }

  isFull(compressionRatio: number): boolean {
    return this.closed || (this.records.length > 0 && this.writeLimit <= this.estimatedBytes(compressionRatio));
  }

  /** Appends the record if it fits (the first record always does); returns its size, or null. */
  tryAppend(record: QueuedRecord, compressionRatio: number): number | null {
    if (this.closed) return null;
    const first = this.records[0];
    const size = recordSizeInBatch(this.records.length, first === undefined ? 0n : record.timestamp - first.timestamp, record);
    if (first !== undefined && this.writeLimit < this.estimatedBytes(compressionRatio) + size) {
      this.closed = true;
      return null;
    }
    this.records.push(record);
    this.recordBytes += size;
    return size;
  }
}

/** Kafka's `MemoryRecordsBuilder.COMPRESSION_RATE_ESTIMATION_FACTOR`. */
const COMPRESSION_RATE_ESTIMATION_FACTOR = 1.05;
/** Kafka's `CompressionRatioEstimator` steps: trust a better ratio slowly, a worse one quickly. */
const COMPRESSION_RATIO_IMPROVING_STEP = 0.005;
const COMPRESSION_RATIO_DETERIORATE_STEP = 0.05;

export class RecordAccumulator {
  private readonly queues = new Map<string, Map<number, ProducerBatch[]>>();
  private readonly compressionRatios = new Map<string, number>();
  /** Per leader, where the next drain starts, so every partition gets its turn in a full request. */
  private readonly drainStart = new Map<number, number>();

  constructor(private readonly config: AccumulatorConfig) {}

  append(topic: string, partition: number, record: QueuedRecord, now: number): AppendResult {
    const queue = this.queue(topic, partition);
    const ratio = this.compressionRatio(topic);
    const last = queue[queue.length - 1];
    if (last !== undefined) {
      const size = last.tryAppend(record, ratio);
      if (size !== null) return { batchIsFull: queue.length > 1 || last.isFull(ratio), newBatchCreated: false, sizeInBytes: size };
    }
    // A record larger than batch.size still gets a batch, of its own size (Kafka allocates max(batch.size, record)).
    const batch = new ProducerBatch(topic, partition, now, this.config.batchSize, this.config.compression !== CompressionType.None);
    const size = batch.tryAppend(record, ratio)!;
    queue.push(batch);
    return { batchIsFull: queue.length > 1 || batch.isFull(ratio), newBatchCreated: true, sizeInBytes: size };
  }

  /** Which leaders have something to send; with `force` (flush, buffer exhausted) every queued batch counts. */
  ready(now: number, leaderOf: LeaderLookup, force: boolean): ReadyCheck {
    const readyNodes = new Set<number>();
    const unknownLeaderTopics = new Set<string>();
    let nextCheckDelayMs = Number.POSITIVE_INFINITY;
    for (const [topic, partitions] of this.queues) {
      const ratio = this.compressionRatio(topic);
      for (const [partition, queue] of partitions) {
        const first = queue[0];
        if (first === undefined) continue;
        const leader = leaderOf(topic, partition);
        if (leader === undefined) {
          unknownLeaderTopics.add(topic);
          continue;
        }
        if (readyNodes.has(leader)) continue;
        // A retry waits for its backoff; a fresh batch for its linger (Kafka: `lastAttemptMs` + linger or backoff).
        const waitUntil = first.attempts > 0 ? first.retryAt : first.createdAt + this.config.lingerMs;
        const full = queue.length > 1 || first.isFull(ratio);
        const backingOff = first.attempts > 0 && now < first.retryAt;
        if (!backingOff && (full || force || now >= waitUntil)) readyNodes.add(leader);
        else nextCheckDelayMs = Math.min(nextCheckDelayMs, Math.max(0, waitUntil - now));
      }
    }
    return { readyNodes, nextCheckDelayMs, unknownLeaderTopics };
  }

  /**
   * For each node, the first batch of each of its partitions (not backing off), as many as fit
   * in `maxRequestBytes` (estimated; the first batch always goes). Drained batches leave the
   * accumulator; a retry comes back with `reenqueue`.
   */
  drain(nodes: Iterable<number>, leaderOf: LeaderLookup, maxRequestBytes: number, now: number): Map<number, ProducerBatch[]> {
    const out = new Map<number, ProducerBatch[]>();
    for (const node of nodes) {
      const queues = this.queuesLedBy(node, leaderOf);
      if (queues.length === 0) continue;
      const start = (this.drainStart.get(node) ?? 0) % queues.length;
      const batches: ProducerBatch[] = [];
      let bytes = 0;
      let next = start + 1;
      for (let i = 0; i < queues.length; i++) {
        const at = (start + i) % queues.length;
        const first = queues[at]![0];
        if (first === undefined || (first.attempts > 0 && now < first.retryAt)) continue;
        const size = first.estimatedBytes(this.compressionRatio(first.topic));
        if (batches.length > 0 && bytes + size > maxRequestBytes) {
          next = at;
          break;
        }
        first.closed = true;
        queues[at]!.shift();
        batches.push(first);
        bytes += size;
      }
      this.drainStart.set(node, next % queues.length);
      if (batches.length > 0) out.set(node, batches);
    }
    return out;
  }

  /** A batch to retry goes back to the head of its partition's queue, sendable after `backoffMs`. */
  reenqueue(batch: ProducerBatch, now: number, backoffMs: number): void {
    batch.retryAt = now + backoffMs;
    this.queue(batch.topic, batch.partition).unshift(batch);
  }

  /** Kafka's `CompressionRatioEstimator.updateEstimation`, after a compressed batch is encoded. */
  observeCompression(topic: string, observedRatio: number): void {
    const current = this.compressionRatio(topic);
    if (observedRatio > current) this.compressionRatios.set(topic, Math.max(current + COMPRESSION_RATIO_DETERIORATE_STEP, observedRatio));
    else if (observedRatio < current)
      this.compressionRatios.set(topic, Math.max(current - COMPRESSION_RATIO_IMPROVING_STEP, observedRatio));
  }

  /** Records waiting in batches that are not drained yet. */
  get queuedRecords(): number {
    let n = 0;
    for (const partitions of this.queues.values()) for (const queue of partitions.values()) for (const b of queue) n += b.records.length;
    return n;
  }

  /** Removes and returns every queued batch (the producer fails them on close). */
  takeAll(): ProducerBatch[] {
    const all: ProducerBatch[] = [];
    for (const partitions of this.queues.values()) for (const queue of partitions.values()) all.push(...queue.splice(0));
    return all;
  }

  private compressionRatio(topic: string): number {
    return this.compressionRatios.get(topic) ?? 1;
  }

  private queue(topic: string, partition: number): ProducerBatch[] {
    let partitions = this.queues.get(topic);
    if (partitions === undefined) {
      partitions = new Map();
      this.queues.set(topic, partitions);
    }
    let queue = partitions.get(partition);
    if (queue === undefined) {
      queue = [];
      partitions.set(partition, queue);
    }
    return queue;
  }

  /** Every partition queue (empty ones too, so positions are stable between drains) of this leader. */
  private queuesLedBy(node: number, leaderOf: LeaderLookup): ProducerBatch[][] {
    const out: ProducerBatch[][] = [];
    for (const [topic, partitions] of this.queues) {
      for (const [partition, queue] of partitions) if (leaderOf(topic, partition) === node) out.push(queue);
    }
    return out;
  }
}

/**
 * The bytes a record takes inside an uncompressed batch, Kafka's `DefaultRecord.sizeInBytes`:
 * its varint length prefix, then attributes, timestamp and offset deltas, key, value and
 * headers, each length a zigzag varint (-1 for null).
 */
export function recordSizeInBatch(
  offsetDelta: number,
  timestampDelta: bigint,
  record: Pick<QueuedRecord, 'key' | 'value' | 'headers'>,
): number {
  let body = 1 + varintSize(Number(timestampDelta)) + varintSize(offsetDelta) + bytesFieldSize(record.key) + bytesFieldSize(record.value);
  body += varintSize(record.headers.length);
  for (const h of record.headers) {
    const key = Buffer.byteLength(h.key);
    body += varintSize(key) + key + bytesFieldSize(h.value);
  }
  return varintSize(body) + body;
}

function bytesFieldSize(bytes: Uint8Array | null): number {
  return bytes === null ? 1 : varintSize(bytes.length) + bytes.length;
}

/** Bytes of a zigzag varint (a varlong for the timestamp delta, exact in a double at these magnitudes). */
function varintSize(value: number): number {
  let v = value >= 0 ? value * 2 : -value * 2 - 1;
  let bytes = 1;
  while (v >= 128) {
    v = Math.floor(v / 128);
    bytes++;
  }
  return bytes;
}
