/**
 * Runs the group coordinators (main thread): one `GroupCoordinator` state machine per
 * `__consumer_offsets` partition, loaded on first use by replaying the partition, with its
 * operations applied one at a time. Every operation's records are appended to the partition
 * before its response — and the answers it releases to parked JoinGroup/SyncGroup requests —
 * are sent, so a client never sees a state the log does not hold. One timer per coordinator
 * drives `tick` at the coordinator's next deadline.
 */
import { KafkaError } from '../common/kafka-error.js';
import type { Logger } from '../common/logger.js';
import { ErrorCode } from '../protocol/errors.js';
import type { ListGroupsRequestData, ListGroupsResponseDataInput } from '../protocol/messages/index.js';
import type { GroupCoordinatorConfig } from '../coordinator/group/config.js';
import { GroupCoordinator } from '../coordinator/group/group-coordinator.js';
import { partitionFor } from '../coordinator/group/partition-for.js';
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

class PartitionCoordinator {
  /** Operations run in this chain, so each sees the state its predecessor's append made durable. */
  tail: Promise<unknown>;
  timer: NodeJS.Timeout | null = null;

  constructor(
    readonly partition: number,
    readonly coordinator: Coordinator,
    loading: Promise<void>,
  ) {
    this.tail = loading;
  }
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
    await this.coordinatorFor(groupId).tail;
  }

  private async load(partition: number, coordinator: Coordinator): Promise<void> {
    await this.log.ensureTopic();
    const errorCode = await this.log.replay(partition, (key, value) => coordinator.replay(key, value));
    if (errorCode !== ErrorCode.NONE) throw new KafkaError(errorCode, `replaying __consumer_offsets-${partition} failed`);
    coordinator.loaded(this.clock());
  }

  /**
   * Applies a write operation in order: its records are appended, then its response is returned
   * and the answers it released are delivered. Rejects with COORDINATOR_NOT_AVAILABLE when the
   * append fails (the coordinator is then rebuilt from the log on next use).
   */
  run<R>(groupId: string, op: (c: Coordinator, now: number) => CoordinatorResult<R, ParkedReply>): Promise<R> {
    const pc = this.coordinatorFor(groupId);
    const run = pc.tail.then(async () => {
      const result = op(pc.coordinator, this.clock());
      await this.commit(pc, result.records, result.released);
      return result.response;
    });
    pc.tail = run.catch(() => undefined);
    return run;
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

  /** A read-only operation, in order with the writes of the same coordinator. */
  read<R>(groupId: string, op: (c: Coordinator) => R): Promise<R> {
    const pc = this.coordinatorFor(groupId);
    const run = pc.tail.then(() => op(pc.coordinator));
    pc.tail = run.catch(() => undefined);
    return run;
  }

  /** ListGroups covers every coordinator: all partitions are loaded once the topic exists. */
  async listGroups(request: ListGroupsRequestData): Promise<ListGroupsResponseDataInput> {
    if (this.log.exists()) this.loadAll();
    const all = await Promise.all([...this.partitions.values()].map((pc) => pc.tail.then(() => pc.coordinator.listGroups(request))));
    return { errorCode: ErrorCode.NONE, groups: all.flatMap((r) => r.groups ?? []) };
  }

  private async commit(pc: PartitionCoordinator, records: readonly CoordinatorRecord[], released: readonly Released<ParkedReply>[]): Promise<void> {
    if (records.length > 0) {
      const errorCode = await this.log.append(pc.partition, records);
      if (errorCode !== ErrorCode.NONE) {
        this.logger.error('appending group records failed; the coordinator reloads from the log', { partition: pc.partition, errorCode });
        this.drop(pc);
        throw new KafkaError(ErrorCode.COORDINATOR_NOT_AVAILABLE, `__consumer_offsets-${pc.partition} append failed with ${errorCode}`);
      }
    }
    for (const r of released) r.to(r);
    this.schedule(pc);
  }

  /** Forgets a coordinator whose state may be ahead of its log; parked requests learn NOT_COORDINATOR. */
  private drop(pc: PartitionCoordinator): void {
    if (pc.timer !== null) clearTimeout(pc.timer);
    this.partitions.delete(pc.partition);
    for (const r of pc.coordinator.unload()) r.to(r);
  }

  private schedule(pc: PartitionCoordinator): void {
    if (pc.timer !== null) clearTimeout(pc.timer);
    pc.timer = null;
    const deadline = pc.coordinator.nextDeadline();
    if (deadline === null || this.closed) return;
    pc.timer = setTimeout(() => {
      pc.timer = null;
      pc.tail = pc.tail
        .then(async () => {
          const result = pc.coordinator.tick(this.clock());
          await this.commit(pc, result.records, result.released);
        })
        .catch((err: unknown) => this.logger.error('group coordinator tick failed', { partition: pc.partition, error: String(err) }));
    }, Math.max(0, deadline - this.clock()));
    pc.timer.unref();
  }

  /** Shutdown: timers stop and every parked request is answered NOT_COORDINATOR. */
  close(): void {
    this.closed = true;
    for (const pc of [...this.partitions.values()]) this.drop(pc);
  }
}
