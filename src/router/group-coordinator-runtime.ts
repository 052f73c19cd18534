/**
 * Runs the group coordinators (main thread): one `GroupCoordinator` state machine per
 * `__consumer_offsets` partition, loaded on first use by replaying the partition.
 *
 * Operations are applied to the state machine at once, in arrival order; their responses — and
 * the answers they release to parked JoinGroup/SyncGroup requests — are held until the records
 * of every operation applied before them are in the log, so a client never sees a state the log
 * does not hold. Records of operations that arrive while an append is in flight are gathered
 * and appended together (group commit), which is what lets concurrent commits scale. If an
 * append fails, the coordinator is dropped with everything not yet durable, and rebuilt from the
 * log on next use. One timer per coordinator drives `tick` at its next deadline.
 */
import { KafkaError } from '../common/kafka-error.js';
import type { Logger } from '../common/logger.js';
import { ErrorCode } from '../protocol/errors.js';
import type { ListGroupsRequestData, ListGroupsResponseDataInput } from '../protocol/messages/index.js';
import type { GroupCoordinatorConfig } from '../coordinator/group/config.js';
import { GroupCoordinator } from '../coordinator/group/group-coordinator.js';
import { partitionFor } from '../coordinator/group/partition-for.js';
import type { GroupOffset } from '../common/metrics/consumer-lag.js';
import type { CoordinatorRecord } from '../coordinator/group/records.js';
import type { CoordinatorResult, Released } from '../coordinator/group/results.js';

/** Where a parked JoinGroup or SyncGroup gets its answer. */
export type ParkedReply = (released: Released<ParkedReply>) => void;

export type Coordinator = GroupCoordinator<ParkedReply>;

/** The `__consumer_offsets` partitions as the runtime uses them. */
export interface CoordinatorLog {
  /** True once the topic exists (it is created on the first group operation, as in Kafka). */
  exists(): boolean;
  /** Creates the topic if it does not exist yet. */
  ensureTopic(): Promise<void>;
  /** Appends the records as one batch; resolves with the Kafka error code. */
  append(partition: number, records: readonly CoordinatorRecord[]): Promise<number>;
  /** Calls `onRecord` for every record of the partition in offset order; resolves with the error code. */
  replay(partition: number, onRecord: (key: Buffer, value: Buffer | null) => void): Promise<number>;
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

class PartitionCoordinator {
  batch = new PendingBatch();
  appending = false;
  dropped = false;
  timer: NodeJS.Timeout | null = null;

  constructor(
    readonly partition: number,
    readonly coordinator: Coordinator,
    /** Resolves once the partition is replayed; operations queue behind it in arrival order. */
    readonly loaded: Promise<void>,
  ) {}
}

export class GroupCoordinatorRuntime {
  private readonly partitions = new Map<number, PartitionCoordinator>();
  private closed = false;

  constructor(
    private readonly log: CoordinatorLog,
    private readonly numPartitions: number,
    private readonly config: Partial<GroupCoordinatorConfig>,
    private readonly logger: Logger,
    private readonly clock: () => number = Date.now,
  ) {}

  partitionOf(groupId: string): number {
    return partitionFor(groupId, this.numPartitions);
  }

  /** The coordinator of `groupId`'s partition, loading it (and creating the topic) on first use. */
  private coordinatorFor(groupId: string): PartitionCoordinator {
    return this.coordinatorOfPartition(this.partitionOf(groupId));
  }

  private coordinatorOfPartition(partition: number): PartitionCoordinator {
    let pc = this.partitions.get(partition);
    if (pc === undefined) {
      const coordinator: Coordinator = new GroupCoordinator({ config: this.config });
      const loading = this.load(partition, coordinator);
      pc = new PartitionCoordinator(partition, coordinator, loading);
      this.partitions.set(partition, pc);
      const created = pc;
      loading.then(
        () => this.schedule(created),
        (err: unknown) => {
          this.logger.error('loading a group coordinator failed', { partition, error: String(err) });
          if (this.partitions.get(partition) === created) this.partitions.delete(partition);
        },
      );
    }
    return pc;
  }

  /** Loads every partition's coordinator, as a broker does for the partitions it leads at start-up. */
  loadAll(): void {
    for (let p = 0; p < this.numPartitions; p++) if (!this.partitions.has(p)) this.coordinatorOfPartition(p);
  }

  /** Makes sure the coordinator of `groupId` is loaded (FindCoordinator starts this early). */
  async prepare(groupId: string): Promise<void> {
    await this.coordinatorFor(groupId).loaded;
  }

  private async load(partition: number, coordinator: Coordinator): Promise<void> {
    await this.log.ensureTopic();
    const errorCode = await this.log.replay(partition, (key, value) => coordinator.replay(key, value));
    if (errorCode !== ErrorCode.NONE) throw new KafkaError(errorCode, `replaying __consumer_offsets-${partition} failed`);
    coordinator.loaded(this.clock());
  }

  /**
   * Applies an operation in arrival order and resolves with its response once its records, and
   * those of every operation applied before it, are durable. Rejects with
   * COORDINATOR_NOT_AVAILABLE when that append fails.
   */
  run<R>(groupId: string, op: (c: Coordinator, now: number) => CoordinatorResult<R, ParkedReply>): Promise<R> {
    const pc = this.coordinatorFor(groupId);
    return pc.loaded.then(() => {
      if (pc.dropped) throw new KafkaError(ErrorCode.COORDINATOR_NOT_AVAILABLE, `the coordinator of __consumer_offsets-${pc.partition} is reloading`);
      const result = op(pc.coordinator, this.clock());
      return this.whenDurable(pc, result.records, result.released, result.response);
    });
  }

  /** Like `run`, for JoinGroup and SyncGroup: a parked request resolves when a later operation answers it. */
  runParkable<R>(groupId: string, api: Released<ParkedReply>['api'], op: (c: Coordinator, now: number, replyTo: ParkedReply) => CoordinatorResult<R | null, ParkedReply>): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const replyTo: ParkedReply = (released) => {
        if (released.api !== api) {
          reject(new Error(`a ${api} was answered as ${released.api}`));
          return;
        }
        resolve(released.response as R);
      };
      this.run(groupId, (c, now) => op(c, now, replyTo)).then((response) => {
        if (response !== null) resolve(response);
      }, reject);
    });
  }

  /** A read-only operation: computed in order with the writes, answered once what it saw is durable. */
  read<R>(groupId: string, op: (c: Coordinator) => R): Promise<R> {
    return this.run(groupId, (c) => ({ records: [], response: op(c), released: [] }));
  }

  /** ListGroups covers every coordinator: all partitions are loaded once the topic exists. */
  async listGroups(request: ListGroupsRequestData): Promise<ListGroupsResponseDataInput> {
    if (this.log.exists()) this.loadAll();
    const all = await Promise.all(
      [...this.partitions.values()].map((pc) => pc.loaded.then(() => this.whenDurable(pc, [], [], pc.coordinator.listGroups(request)))),
    );
    return { errorCode: ErrorCode.NONE, groups: all.flatMap((r) => r.groups ?? []) };
  }

  /**
   * Every group's committed offsets, for the consumer lag metrics. Only coordinators already
   * loaded or loading are asked — a scrape must not create `__consumer_offsets` — and each
   * answers, like any read, once what it showed is durable. A coordinator that fails to load or
   * is dropped meanwhile (both logged where they happen) is left out of this answer rather than
   * failing it; the next one asks its replacement.
   */
  async committedOffsets(): Promise<GroupOffset[]> {
    const reads = [...this.partitions.values()].map((pc) =>
      pc.loaded.then(() => {
        if (pc.dropped) throw new KafkaError(ErrorCode.COORDINATOR_NOT_AVAILABLE, `the coordinator of __consumer_offsets-${pc.partition} is reloading`);
        return this.whenDurable(pc, [], [], pc.coordinator.committedOffsets());
      }),
    );
    const offsets: GroupOffset[] = [];
    for (const read of await Promise.allSettled(reads)) {
      // A loop, not push(...): a coordinator may hold more offsets than a call takes arguments.
      if (read.status === 'fulfilled') for (const o of read.value) offsets.push(o);
      else this.logger.debug('committed offsets unavailable for metrics', { error: String(read.reason) });
    }
    return offsets;
  }

  /** Adds an applied operation to the pending batch; resolves with `response` once the batch is durable. */
  private whenDurable<R>(pc: PartitionCoordinator, records: readonly CoordinatorRecord[], released: readonly Released<ParkedReply>[], response: R): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      pc.batch.records.push(...records);
      pc.batch.onDurable.push(() => {
        for (const r of released) r.to(r);
        resolve(response);
      });
      pc.batch.onFailed.push(reject);
      this.flush(pc);
    });
  }

  /** Appends the pending batch unless an append is in flight; the next batch follows when it lands. */
  private flush(pc: PartitionCoordinator): void {
    if (pc.appending || pc.batch.empty || pc.dropped) return;
    const batch = pc.batch;
    pc.batch = new PendingBatch();
    pc.appending = true;
    const appended = batch.records.length === 0 ? Promise.resolve(ErrorCode.NONE) : this.log.append(pc.partition, batch.records);
    appended
      .then(
        (errorCode) => {
          if (errorCode !== ErrorCode.NONE) throw new KafkaError(errorCode, `__consumer_offsets-${pc.partition} append failed with ${errorCode}`);
          for (const done of batch.onDurable) done();
          this.schedule(pc);
        },
        (err: unknown) => {
          throw err instanceof Error ? err : new Error(String(err));
        },
      )
      .catch((err: Error) => {
        this.logger.error('appending group records failed; the coordinator reloads from the log', { partition: pc.partition, error: err.message });
        const failure = new KafkaError(ErrorCode.COORDINATOR_NOT_AVAILABLE, err.message);
        for (const fail of batch.onFailed) fail(failure);
        this.drop(pc, failure);
      })
      .finally(() => {
        pc.appending = false;
        this.flush(pc);
      });
  }

  /**
   * Forgets a coordinator whose state may be ahead of its log: operations not yet durable fail,
   * parked requests learn NOT_COORDINATOR, and the next use replays the log afresh.
   */
  private drop(pc: PartitionCoordinator, failure: Error): void {
    if (pc.dropped) return;
    pc.dropped = true;
    if (pc.timer !== null) clearTimeout(pc.timer);
    if (this.partitions.get(pc.partition) === pc) this.partitions.delete(pc.partition);
    for (const fail of pc.batch.onFailed) fail(failure);
    pc.batch = new PendingBatch();
    for (const r of pc.coordinator.unload()) r.to(r);
  }

  private schedule(pc: PartitionCoordinator): void {
    if (pc.timer !== null) clearTimeout(pc.timer);
    pc.timer = null;
    const deadline = pc.coordinator.nextDeadline();
    if (deadline === null || this.closed || pc.dropped) return;
    pc.timer = setTimeout(() => {
      pc.timer = null;
      if (pc.dropped) return;
      const result = pc.coordinator.tick(this.clock());
      this.whenDurable(pc, result.records, result.released, undefined).catch((err: unknown) =>
        this.logger.error('group coordinator tick failed', { partition: pc.partition, error: String(err) }),
      );
    }, Math.max(0, deadline - this.clock()));
    pc.timer.unref();
  }

  /** Shutdown: timers stop and every parked request is answered NOT_COORDINATOR. */
  close(): void {
    this.closed = true;
    const shutdown = new KafkaError(ErrorCode.NOT_COORDINATOR, 'the broker is shutting down');
    for (const pc of [...this.partitions.values()]) this.drop(pc, shutdown);
  }
}
