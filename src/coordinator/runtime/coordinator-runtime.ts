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
 */
import { KafkaError } from '../../common/kafka-error.js';
import type { Logger } from '../../common/logger.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { CoordinatorLog, CoordinatorRecord } from './coordinator-log.js';

/** What an operation or a timer produced: records to append, then answers to hand out once durable. */
export interface ShardResult<R, D> {
  readonly records: readonly CoordinatorRecord[];
  readonly response: R;
  /** Answers to earlier, parked requests, delivered once the records are durable. */
  readonly released: readonly D[];
}

/** A coordinator state machine over one partition; `D` is an answer it releases to a parked request. */
export interface CoordinatorShard<D> {
  /** Applies one record of the partition, during load. */
  replay(key: Buffer, value: Buffer | null): void;
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

/** Operations applied since the last append started: their records, and what to do once durable. */
class PendingBatch {
  readonly records: CoordinatorRecord[] = [];
  readonly onDurable: Array<() => void> = [];
  readonly onFailed: Array<(err: Error) => void> = [];

  get empty(): boolean {
    return this.onDurable.length === 0;
  }
}

class LoadedShard<S> {
  batch = new PendingBatch();
  appending = false;
  dropped = false;
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
    if (loaded !== undefined) this.drop(loaded, new KafkaError(ErrorCode.NOT_COORDINATOR, `this broker no longer coordinates ${this.options.topic}-${partition}`));
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
    const errorCode = await this.options.log.replay(partition, (key, value) => shard.replay(key, value));
    if (errorCode !== ErrorCode.NONE) throw new KafkaError(errorCode, `replaying ${this.options.topic}-${partition} failed`);
    shard.loaded(this.clock());
  }

  /**
   * Applies an operation in arrival order (loading the shard first if needed) and resolves with
   * its response once its records, and those of every operation applied before it, are durable.
   * Rejects with COORDINATOR_NOT_AVAILABLE when that append fails or the shard is reloading.
   */
  run<R>(partition: number, op: (shard: S, now: number) => ShardResult<R, D>): Promise<R> {
    const loaded = this.shardOf(partition);
    return loaded.loaded.then(() => {
      if (loaded.dropped) throw this.reloading(loaded);
      const result = op(loaded.shard, this.clock());
      return this.whenDurable(loaded, result.records, result.released, result.response);
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
        if (loaded.dropped) throw this.reloading(loaded);
        return this.whenDurable(loaded, [], [], op(loaded.shard));
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

  /** Adds an applied operation to the pending batch; resolves with `response` once the batch is durable. */
  private whenDurable<R>(loaded: LoadedShard<S>, records: readonly CoordinatorRecord[], released: readonly D[], response: R): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      for (const r of records) loaded.batch.records.push(r);
      loaded.batch.onDurable.push(() => {
        for (const r of released) this.options.deliver(r);
        resolve(response);
      });
      loaded.batch.onFailed.push(reject);
      this.flush(loaded);
    });
  }

  /** Appends the pending batch unless an append is in flight; the next batch follows when it lands. */
  private flush(loaded: LoadedShard<S>): void {
    if (loaded.appending || loaded.batch.empty || loaded.dropped) return;
    const batch = loaded.batch;
    loaded.batch = new PendingBatch();
    loaded.appending = true;
    const appended = batch.records.length === 0 ? Promise.resolve(ErrorCode.NONE) : this.options.log.append(loaded.partition, batch.records);
    appended
      .then(
        (errorCode) => {
          if (errorCode !== ErrorCode.NONE) throw new KafkaError(errorCode, `${this.options.topic}-${loaded.partition} append failed with ${errorCode}`);
          for (const done of batch.onDurable) done();
          this.schedule(loaded);
        },
        (err: unknown) => {
          throw err instanceof Error ? err : new Error(String(err));
        },
      )
      .catch((err: Error) => {
        this.options.logger.error('appending coordinator records failed; the coordinator reloads from the log', {
          topic: this.options.topic,
          partition: loaded.partition,
          error: err.message,
        });
        const failure = new KafkaError(ErrorCode.COORDINATOR_NOT_AVAILABLE, err.message);
        for (const fail of batch.onFailed) fail(failure);
        this.drop(loaded, failure);
      })
      .finally(() => {
        loaded.appending = false;
        this.flush(loaded);
      });
  }

  /**
   * Forgets a shard whose state may be ahead of its log: operations not yet durable fail with
   * `failure`, parked requests get the shard's unload answers, and the next use replays afresh.
   */
  private drop(loaded: LoadedShard<S>, failure: Error): void {
    if (loaded.dropped) return;
    loaded.dropped = true;
    if (loaded.timer !== null) clearTimeout(loaded.timer);
    if (this.shards.get(loaded.partition) === loaded) this.shards.delete(loaded.partition);
    for (const fail of loaded.batch.onFailed) fail(failure);
    loaded.batch = new PendingBatch();
    for (const r of loaded.shard.unload()) this.options.deliver(r);
  }

  private schedule(loaded: LoadedShard<S>): void {
    if (loaded.timer !== null) clearTimeout(loaded.timer);
    loaded.timer = null;
    const deadline = loaded.shard.nextDeadline();
    if (deadline === null || this.closed || loaded.dropped) return;
    loaded.timer = setTimeout(() => {
      loaded.timer = null;
      if (loaded.dropped) return;
      const result = loaded.shard.tick(this.clock());
      this.whenDurable(loaded, result.records, result.released, undefined).catch((err: unknown) =>
        this.options.logger.error('coordinator tick failed', { topic: this.options.topic, partition: loaded.partition, error: String(err) }),
      );
    }, Math.max(0, deadline - this.clock()));
    loaded.timer.unref();
  }

  /** Shutdown: timers stop and every parked request is answered as the shards unload. */
  close(): void {
    this.closed = true;
    const shutdown = new KafkaError(ErrorCode.NOT_COORDINATOR, 'the broker is shutting down');
    for (const loaded of [...this.shards.values()]) this.drop(loaded, shutdown);
  }
}
