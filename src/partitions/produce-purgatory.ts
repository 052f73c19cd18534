/**
 * Where acks=all produces wait for their records to be committed (main thread; Kafka's
 * `DelayedProduce`). A Produce whose appends left the high watermark below their last offset
 * parks its partitions here, each with the offset the high watermark must reach, for at most the
 * request's timeout. The partitions' leaders decide when an append is done (`CheckAcks`: the
 * worker's `Partition` holds the high watermark, the ISR and the leadership); the purgatory asks
 * them when a high watermark moved past a waiting offset, when a partition's controller state
 * changed, and once right after parking (a move between the append's answer and the parking is
 * otherwise missed). A partition still waiting at the timeout answers REQUEST_TIMED_OUT, as in
 * Kafka; the request is answered when all its partitions are.
 *
 * On a single broker the high watermark reaches the log end with each append, so nothing parks.
 */
import { KafkaError } from '../common/kafka-error.js';
import { ErrorCode } from '../protocol/errors.js';
import type { AcksStatus, AcksWait } from './partition-protocol.js';
import { topicPartitionKey } from '../common/topic-partition.js';

/** Asks the leaders where each wait stands; answers every wait, in order, without rejecting. */
export type CheckAcks = (waits: readonly AcksWait[]) => Promise<AcksStatus[]>;

interface ParkedProduce {
  /** Each partition's answer; REQUEST_TIMED_OUT until it is done. */
  readonly codes: number[];
  pending: number;
  readonly resolve: (codes: number[]) => void;
  timer: NodeJS.Timeout | undefined;
  readonly entries: ParkedPartition[];
}

interface ParkedPartition {
  readonly wait: AcksWait;
  readonly key: string;
  readonly produce: ParkedProduce;
  readonly index: number;
  done: boolean;
}

export class ProducePurgatory {
  private readonly byKey = new Map<string, Set<ParkedPartition>>();
  /** Partitions to ask about at the end of this turn, so many wake-ups cost one check per worker. */
  private readonly toCheck = new Set<ParkedPartition>();

  constructor(private readonly check: CheckAcks) {}

  /** Partitions waiting (for metrics and tests). */
  get waiting(): number {
    let n = 0;
    for (const set of this.byKey.values()) n += set.size;
    return n;
  }

  /**
   * Parks `waits` (one produce request's) until each is done or `timeoutMs` passes. Resolves
   * with one error code per wait, in order: NONE, NOT_ENOUGH_REPLICAS_AFTER_APPEND,
   * NOT_LEADER_OR_FOLLOWER, another partition error, or REQUEST_TIMED_OUT.
   */
  wait(waits: readonly AcksWait[], timeoutMs: number): Promise<number[]> {
    if (waits.length === 0) return Promise.resolve([]);
    return new Promise((resolve) => {
      const produce: ParkedProduce = { codes: waits.map(() => ErrorCode.REQUEST_TIMED_OUT), pending: waits.length, resolve, timer: undefined, entries: [] };
      waits.forEach((wait, index) => {
        const entry: ParkedPartition = { wait, key: topicPartitionKey(wait.topic, wait.partition), produce, index, done: false };
        produce.entries.push(entry);
        let set = this.byKey.get(entry.key);
        if (set === undefined) this.byKey.set(entry.key, (set = new Set()));
        set.add(entry);
        this.schedule(entry);
      });
      produce.timer = setTimeout(() => this.expire(produce), Math.max(0, timeoutMs));
    });
  }

  /** The high watermark of `key` reached `highWatermark`: the waits it may have satisfied are checked. */
  highWatermarkMoved(key: string, highWatermark: bigint): void {
    const set = this.byKey.get(key);
    if (set === undefined) return;
    for (const entry of set) if (entry.wait.requiredOffset <= highWatermark) this.schedule(entry);
  }

  /** The controller's state for `key` changed (leadership, ISR): every wait on it is checked. */
  recheck(key: string): void {
    const set = this.byKey.get(key);
    if (set === undefined) return;
    for (const entry of set) this.schedule(entry);
  }

  /** Shutdown: every waiting produce answers now, its waiting partitions REQUEST_TIMED_OUT. */
  close(): void {
    const produces = new Set<ParkedProduce>();
    for (const set of this.byKey.values()) for (const entry of set) produces.add(entry.produce);
    for (const produce of produces) this.expire(produce);
  }

  private schedule(entry: ParkedPartition): void {
    if (this.toCheck.size === 0) queueMicrotask(() => this.runChecks());
    this.toCheck.add(entry);
  }

  private runChecks(): void {
    const entries = [...this.toCheck].filter((e) => !e.done);
    this.toCheck.clear();
    if (entries.length === 0) return;
    this.check(entries.map((e) => e.wait)).then(
      (statuses) =>
        statuses.forEach((status, i) => {
          if (status.done) this.complete(entries[i]!, status.errorCode);
        }),
      (err: unknown) => {
        // CheckAcks answers failures per wait; a rejection is a broken owner, answered as Kafka answers an unexpected error.
        const code = err instanceof KafkaError ? err.code : ErrorCode.UNKNOWN_SERVER_ERROR;
        for (const e of entries) this.complete(e, code);
      },
    );
  }

  private complete(entry: ParkedPartition, errorCode: number): void {
    if (entry.done) return;
    this.unpark(entry);
    const produce = entry.produce;
    produce.codes[entry.index] = errorCode;
    if (--produce.pending === 0) {
      clearTimeout(produce.timer);
      produce.resolve(produce.codes);
    }
  }

  private expire(produce: ParkedProduce): void {
    for (const entry of produce.entries) if (!entry.done) this.unpark(entry);
    produce.pending = 0;
    clearTimeout(produce.timer);
    produce.resolve(produce.codes);
  }

  private unpark(entry: ParkedPartition): void {
    entry.done = true;
    const set = this.byKey.get(entry.key);
    if (set === undefined) return;
    set.delete(entry);
    if (set.size === 0) this.byKey.delete(entry.key);
  }
}
