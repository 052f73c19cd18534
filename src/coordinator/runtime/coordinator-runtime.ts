/**
 * Runs coordinators as deterministic state machines (shards) over the partitions of an internal
 * topic, one shard per partition this broker coordinates, the way Kafka's `CoordinatorRuntime`
 * runs the group, transaction and share coordinators. Main thread.
 *
 * A shard is loaded by replaying its partition and unloaded when this broker stops leading it
 * (`load` / `unload`, per partition). Operations are applied to the shard at once, in arrival
 * order; their responses — and the answers they release to parked requests — are held until the
 * records of every operation applied before them are in the log, so a client never sees a state
 * the log does not hold. Records of operations that arrive while an append is in flight are
 * gathered and appended together (group commit). If an append fails, the shard is dropped with
 * everything not yet durable and rebuilt from the log on next use. One timer per shard drives
 * `tick` at its next deadline.
 *
 * Transactions, as Kafka's runtime: a transactional operation's records are appended as a batch
 * of their own, carrying the producer id and epoch (`runTransactional`), never shared with other
 * records; `completeTransaction` applies a transaction's end marker to the shard and appends it
 * in order with the writes around it. Appends go out one at a time in the order their
 * operations were applied, so the shard's state is always that of its log plus what is in flight.
 */
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import type { Logger } from '../../common/logger.js';
import { ERRORS, ErrorCode } from '@sluice/protocol/errors.js';
import type { CoordinatorLog, CoordinatorRecord } from './coordinator-log.js';
import type { TxnMarker, TxnProducer } from './transaction-marker.js';

/** What an operation or a timer produced: records to append, then answers to hand out once durable. */
export interface ShardResult<R, D> {
  readonly records: readonly CoordinatorRecord[];
  readonly response: R;
  /** Answers to earlier, parked requests, delivered once the records are durable. */
  readonly released: readonly D[];
}

/** A coordinator state machine over one partition; `D` is an answer it releases to a parked request. */
export interface CoordinatorShard<D> {
  /** Applies one record of the partition, during load; `producerId`: its transaction's producer, null outside transactions. */
  replay(key: Buffer, value: Buffer | null, producerId: bigint | null): void;
  /**
   * Applies a transaction's end marker, during load and when `completeTransaction` writes one.
   * Shards whose topic never holds transactional records leave it out.
   */
  replayEndTransactionMarker?(producerId: bigint, producerEpoch: number, commit: boolean): void;
  /** The replay is over: the shard starts serving at `now`. */
  loaded(now: number): void;
  tick(now: number): Omit<ShardResult<void, D>, 'response'>;
  /** When `tick` must run next, or null. */
  nextDeadline(): number | null;
  /** The shard is being dropped: the answers for every request it still holds parked. */
  unload(): D[];
}

export interface CoordinatorRuntimeOptions<S extends CoordinatorShard<D>, D> {
  /** The internal topic's name, for errors and logs. */
  readonly topic: string;
  readonly log: CoordinatorLog;
  readonly newShard: () => S;
  /** Hands a released answer to its parked request. */
  readonly deliver: (released: D) => void;
  readonly logger: Logger;
  readonly clock?: () => number;
}

/** One append: plain records (several operations' together), a transactional batch, or an end marker. */
type PendingWrite =
  | { readonly kind: 'records'; readonly records: CoordinatorRecord[]; readonly producer: TxnProducer | null }
  | { readonly kind: 'marker'; readonly marker: TxnMarker };

/**
 * Called when a step is lost: `failure` is the operation's answer; `refusedWith` is the log's
 * error code when it was this step's own append that the log refused.
 */
type OnFailed = (failure: KafkaError, refusedWith: number | null) => void;

/** One append (or none: reads only) and the operations answered once it, and every step before it, is durable. */
class Step {
  readonly onDurable: Array<() => void> = [];
  readonly onFailed: OnFailed[] = [];

  constructor(public write: PendingWrite | null) {}
}

/** Operations applied since the last append started, as the steps that append them in order. */
class PendingBatch {
  readonly steps: Step[] = [];

  get empty(): boolean {
    return this.steps.length === 0;
  }

  /**
   * The step an operation joins: plain records join plain records before them (group commit), a
   * read joins the last step; a transactional batch or a marker always starts a step of its own.
   */
  stepFor(write: PendingWrite | null): Step {
    const last = this.steps.at(-1);
    if (last !== undefined) {
      if (write === null) return last;
      if (last.write === null) {
        last.write = write;
        return last;
      }
      if (isPlain(write) && isPlain(last.write)) {
        for (const r of write.records) last.write.records.push(r);
        return last;
      }
    }
    const step = new Step(write);
    this.steps.push(step);
    return step;
  }
}

/** An operation's records as a write of their own; null when it wrote nothing. */
function recordsWrite(records: readonly CoordinatorRecord[], producer: TxnProducer | null): PendingWrite | null {
  return records.length === 0 ? null : { kind: 'records', records: [...records], producer };
}

function isPlain(write: PendingWrite): write is Extract<PendingWrite, { kind: 'records' }> {
  return write.kind === 'records' && write.producer === null;
}

class LoadedShard<S> {
  batch = new PendingBatch();
  appending = false;
  /** Why the shard was dropped; null while it serves. */
  dropped: KafkaError | null = null;
  timer: NodeJS.Timeout | null = null;

  constructor(
    readonly partition: number,
    readonly shard: S,
    /** Resolves once the partition is replayed; operations queue behind it in arrival order. */
    readonly loaded: Promise<void>,
  ) {}
}

export class CoordinatorRuntime<S extends CoordinatorShard<D>, D> {
  private readonly shards = new Map<number, LoadedShard<S>>();
  private closed = false;
  private readonly clock: () => number;

  constructor(private readonly options: CoordinatorRuntimeOptions<S, D>) {
    this.clock = options.clock ?? Date.now;
  }

  /** True while partition `partition`'s shard is loaded or loading. */
  isLoaded(partition: number): boolean {
    return this.shards.has(partition);
  }

  /** Loads the shard of `partition` (creating the topic first if needed); a no-op if loaded or loading. */
  load(partition: number): Promise<void> {
    return this.shardOf(partition).loaded;
  }

  /**
   * This broker no longer coordinates `partition`: operations not yet durable fail, parked
   * requests learn NOT_COORDINATOR, and the shard is forgotten.
   */
  unload(partition: number): void {
    const loaded = this.shards.get(partition);
    if (loaded !== undefined)
      this.drop(loaded, new KafkaError(ErrorCode.NOT_COORDINATOR, `this broker no longer coordinates ${this.options.topic}-${partition}`));
  }

  private shardOf(partition: number): LoadedShard<S> {
    let loaded = this.shards.get(partition);
    if (loaded === undefined) {
      const shard = this.options.newShard();
      const loading = this.replay(partition, shard);
      loaded = new LoadedShard(partition, shard, loading);
      this.shards.set(partition, loaded);
      const created = loaded;
      loading.then(
        () => this.schedule(created),
        (err: unknown) => {
          this.options.logger.error('loading a coordinator failed', { topic: this.options.topic, partition, error: String(err) });
          if (this.shards.get(partition) === created) this.shards.delete(partition);
        },
      );
    }
    return loaded;
  }

  private async replay(partition: number, shard: S): Promise<void> {
    await this.options.log.ensureTopic();
    const errorCode = await this.options.log.replay(partition, {
      record: (key, value, producerId) => shard.replay(key, value, producerId),
      marker: (producerId, producerEpoch, commit) => shard.replayEndTransactionMarker?.(producerId, producerEpoch, commit),
    });
    if (errorCode !== ErrorCode.NONE)
      throw new KafkaError(
        coordinatorErrorOf(errorCode),
        `replaying ${this.options.topic}-${partition} failed: ${ERRORS.get(errorCode)?.name ?? errorCode}`,
      );
    shard.loaded(this.clock());
  }

  /**
   * Applies an operation in arrival order (loading the shard first if needed) and resolves with
   * its response once its records, and those of every operation applied before it, are durable.
   * Rejects with COORDINATOR_NOT_AVAILABLE when that append fails or the shard is reloading.
   */
  run<R>(partition: number, op: (shard: S, now: number) => ShardResult<R, D>): Promise<R> {
    return this.apply(partition, null, op);
  }

  /**
   * Like `run`, for an operation inside producer `producer`'s transaction (Kafka's
   * scheduleTransactionalWriteOperation): its records are appended as one transactional batch of
   * that producer, apart from every other operation's.
   */
  runTransactional<R>(partition: number, producer: TxnProducer, op: (shard: S, now: number) => ShardResult<R, D>): Promise<R> {
    return this.apply(partition, producer, op);
  }

  private apply<R>(partition: number, producer: TxnProducer | null, op: (shard: S, now: number) => ShardResult<R, D>): Promise<R> {
    const loaded = this.shardOf(partition);
    return loaded.loaded.then(() => {
      if (loaded.dropped !== null) throw this.reloading(loaded);
      const result = op(loaded.shard, this.clock());
      return this.whenDurable(loaded, recordsWrite(result.records, producer), result.released, result.response);
    });
  }

  /**
   * Ends a transaction in `partition` (Kafka's scheduleTransactionCompletion): the shard applies
   * the end marker at once, in order with the operations around it, and the marker is appended
   * after everything applied before it. Resolves once the marker is durable; rejects with the
   * log's error code when the marker's append is refused (the shard then reloads from the log,
   * which does not hold the marker), with COORDINATOR_NOT_AVAILABLE when an earlier append failed
   * or the shard is reloading.
   */
  completeTransaction(partition: number, marker: TxnMarker): Promise<void> {
    const loaded = this.shardOf(partition);
    return loaded.loaded.then(() => {
      if (loaded.dropped !== null) throw this.reloading(loaded);
      loaded.shard.replayEndTransactionMarker?.(marker.producerId, marker.producerEpoch, marker.commit);
      return this.whenDurable(loaded, { kind: 'marker', marker: { ...marker } }, [], undefined, (failure, refusedWith) =>
        refusedWith === null
          ? failure
          : new KafkaError(
              refusedWith,
              `writing the ${marker.commit ? 'COMMIT' : 'ABORT'} marker of producer ${marker.producerId} to ${this.options.topic}-${partition} failed`,
            ),
      );
    });
  }

  /** A read-only operation: computed in order with the writes, answered once what it saw is durable. */
  read<R>(partition: number, op: (shard: S) => R): Promise<R> {
    return this.run(partition, (shard) => ({ records: [], response: op(shard), released: [] }));
  }

  /**
   * Reads every shard already loaded or loading, without loading any other. A shard that fails
   * to load or is dropped meanwhile is left out (its rejection is in `rejected`), so one bad
   * partition does not fail the whole answer.
   */
  async readLoaded<R>(op: (shard: S) => R): Promise<{ readonly values: R[]; readonly rejected: unknown[] }> {
    const reads = [...this.shards.values()].map((loaded) =>
      loaded.loaded.then(() => {
        if (loaded.dropped !== null) throw this.reloading(loaded);
        return this.whenDurable(loaded, null, [], op(loaded.shard));
      }),
    );
    const values: R[] = [];
    const rejected: unknown[] = [];
    for (const read of await Promise.allSettled(reads)) {
      if (read.status === 'fulfilled') values.push(read.value);
      else rejected.push(read.reason);
    }
    return { values, rejected };
  }

  private reloading(loaded: LoadedShard<S>): KafkaError {
    return new KafkaError(ErrorCode.COORDINATOR_NOT_AVAILABLE, `the coordinator of ${this.options.topic}-${loaded.partition} is reloading`);
  }

  /**
   * Adds an applied operation to the pending batch; resolves with `response` once its write, and
   * every write before it, is durable. `failedWith` picks the rejection when its step is lost.
   */
  private whenDurable<R>(
    loaded: LoadedShard<S>,
    write: PendingWrite | null,
    released: readonly D[],
    response: R,
    failedWith: (failure: KafkaError, refusedWith: number | null) => KafkaError = (failure) => failure,
  ): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const step = loaded.batch.stepFor(write);
      step.onDurable.push(() => {
        for (const r of released) this.options.deliver(r);
        resolve(response);
      });
      step.onFailed.push((failure, refusedWith) => reject(failedWith(failure, refusedWith)));
      this.flush(loaded);
    });
  }

  /** Appends the pending batch unless an append is in flight; the next batch follows when it lands. */
  private flush(loaded: LoadedShard<S>): void {
    if (loaded.appending || loaded.batch.empty || loaded.dropped !== null) return;
    const batch = loaded.batch;
    loaded.batch = new PendingBatch();
    loaded.appending = true;
    this.appendSteps(loaded, batch.steps)
      .catch((err: unknown) => {
        // A broken answer callback, not a log failure: the shard's answers can no longer be trusted.
        this.options.logger.error('answering coordinator operations failed; the coordinator reloads from the log', {
          topic: this.options.topic,
          partition: loaded.partition,
          error: String(err),
        });
        this.drop(loaded, new KafkaError(ErrorCode.COORDINATOR_NOT_AVAILABLE, String(err)));
      })
      .finally(() => {
        loaded.appending = false;
        this.flush(loaded);
      });
  }

  /** Appends the steps one after the other; the first that fails loses it and every later one, and drops the shard. */
  private async appendSteps(loaded: LoadedShard<S>, steps: readonly Step[]): Promise<void> {
    for (const [i, step] of steps.entries()) {
      // Dropped meanwhile (leadership moved): what is not appended yet is lost with the shard.
      const refusal =
        loaded.dropped === null ? await this.append(loaded.partition, step.write) : { errorCode: null, message: loaded.dropped.message };
      if (refusal === null) {
        for (const done of step.onDurable) done();
        continue;
      }
      if (loaded.dropped === null) {
        this.options.logger.error('appending coordinator records failed; the coordinator reloads from the log', {
          topic: this.options.topic,
          partition: loaded.partition,
          error: refusal.message,
        });
      }
      const failure = loaded.dropped ?? new KafkaError(ErrorCode.COORDINATOR_NOT_AVAILABLE, refusal.message);
      for (const fail of step.onFailed) fail(failure, refusal.errorCode);
      for (const later of steps.slice(i + 1)) for (const fail of later.onFailed) fail(failure, null);
      this.drop(loaded, failure);
      return;
    }
    this.schedule(loaded);
  }

  /** Appends one step's write: null once durable, else the log's error code (null if the append threw) and why. */
  private async append(partition: number, write: PendingWrite | null): Promise<{ errorCode: number | null; message: string } | null> {
    if (write === null) return null;
    try {
      const errorCode =
        write.kind === 'marker'
          ? await this.options.log.appendMarker(partition, write.marker)
          : await this.options.log.append(partition, write.records, write.producer ?? undefined);
      return errorCode === ErrorCode.NONE
        ? null
        : { errorCode, message: `${this.options.topic}-${partition} append failed with ${errorCode}` };
    } catch (err) {
      return { errorCode: null, message: err instanceof Error ? err.message : String(err) };
    }
  }

  /**
   * Forgets a shard whose state may be ahead of its log: operations not yet durable fail with
   * `failure`, parked requests get the shard's unload answers, and the next use replays afresh.
   */
  private drop(loaded: LoadedShard<S>, failure: KafkaError): void {
    if (loaded.dropped !== null) return;
    loaded.dropped = failure;
    if (loaded.timer !== null) clearTimeout(loaded.timer);
    if (this.shards.get(loaded.partition) === loaded) this.shards.delete(loaded.partition);
    for (const step of loaded.batch.steps) for (const fail of step.onFailed) fail(failure, null);
    loaded.batch = new PendingBatch();
    for (const r of loaded.shard.unload()) this.options.deliver(r);
  }

  private schedule(loaded: LoadedShard<S>): void {
    if (loaded.timer !== null) clearTimeout(loaded.timer);
    loaded.timer = null;
    const deadline = loaded.shard.nextDeadline();
    if (deadline === null || this.closed || loaded.dropped !== null) return;
    loaded.timer = setTimeout(
      () => {
        loaded.timer = null;
        if (loaded.dropped !== null) return;
        const result = loaded.shard.tick(this.clock());
        this.whenDurable(loaded, recordsWrite(result.records, null), result.released, undefined).catch((err: unknown) =>
          this.options.logger.error('coordinator tick failed', {
            topic: this.options.topic,
            partition: loaded.partition,
            error: String(err),
          }),
        );
      },
      Math.max(0, deadline - this.clock()),
    );
    loaded.timer.unref();
  }

  /** Shutdown: timers stop and every parked request is answered as the shards unload. */
  close(): void {
    this.closed = true;
    const shutdown = new KafkaError(ErrorCode.NOT_COORDINATOR, 'the broker is shutting down');
    for (const loaded of [...this.shards.values()]) this.drop(loaded, shutdown);
  }
}

/**
 * The coordinator error a client is answered for a partition error met while serving it (Kafka's
 * CoordinatorOperationExceptionHelper): a coordinator partition that is missing, short of
 * replicas or slow is COORDINATOR_NOT_AVAILABLE, one led or stored elsewhere NOT_COORDINATOR —
 * both of which clients retry, looking the coordinator up again — where the partition's own code
 * (UNKNOWN_TOPIC_OR_PARTITION, say) would end a share consumer's or a group member's session.
 */
export function coordinatorErrorOf(errorCode: number): number {
  switch (errorCode) {
    case ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
    case ErrorCode.NOT_ENOUGH_REPLICAS:
    case ErrorCode.REQUEST_TIMED_OUT:
      return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    case ErrorCode.NOT_LEADER_OR_FOLLOWER:
    case ErrorCode.KAFKA_STORAGE_ERROR:
      return ErrorCode.NOT_COORDINATOR;
    case ErrorCode.MESSAGE_TOO_LARGE:
    case ErrorCode.RECORD_LIST_TOO_LARGE:
    case ErrorCode.INVALID_FETCH_SIZE:
      return ErrorCode.UNKNOWN_SERVER_ERROR;
    default:
      return errorCode;
  }
}
