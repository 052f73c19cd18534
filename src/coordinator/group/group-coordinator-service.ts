/**
 * The group coordinators of this broker (main thread): a `GroupCoordinator` state machine per
 * `__consumer_offsets` partition this broker leads, run by the generic `CoordinatorRuntime`. A
 * group lives in the partition `partitionFor(groupId)` names; a request for a group whose
 * partition this broker does not lead answers NOT_COORDINATOR, so clients look the coordinator
 * up again. Shards load when this broker becomes the partition's leader (`onLeadership`, and on
 * first use of a led partition) and unload when it stops leading.
 *
 * Transactions: TxnOffsetCommit's records are appended as its producer's transactional batch, and
 * WriteTxnMarkers for a `__consumer_offsets` partition ends here (`completeTransaction`): the group
 * coordinator writes the end marker itself, as Kafka's does.
 *
 * Share groups: `share` runs the share group operations that call the share coordinator through
 * the injected `SharePersister` between coordinator steps (share/share-group-service.ts).
 */
import { KafkaError, kafkaErrorCode } from '@sluice/protocol/common/kafka-error.js';
import type { Logger } from '../../common/logger.js';
import type { GroupOffset } from '../../common/metrics/consumer-lag.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { CONSUMER_OFFSETS_TOPIC as OFFSETS_TOPIC } from '@sluice/protocol/internal-topics.js';
import type { ListGroupsRequestData, ListGroupsResponseDataInput } from '@sluice/protocol/messages/index.js';
import type { TxnOffsetCommitRequestData, TxnOffsetCommitResponseDataInput } from '@sluice/protocol/messages/api/28-txn-offset-commit.js';
import type { CoordinatorLog } from '../runtime/coordinator-log.js';
import { CoordinatorRuntime, type ShardResult } from '../runtime/coordinator-runtime.js';
import type { TxnMarker } from '../runtime/transaction-marker.js';
import type { GroupCoordinatorConfig } from './config.js';
import { GroupCoordinator } from './group-coordinator.js';
import { partitionFor } from './partition-for.js';
import type { CoordinatorResult, Released } from './results.js';
import type { SharePersister } from '../share/share-state-persister.js';
import type { TopicsImage } from './consumer/subscribed-topics.js';
import { ShareGroupService, UNAVAILABLE_SHARE_PERSISTER } from './share/share-group-service.js';
import type { DeleteGroupsResponseDeletableGroupResultInput } from '@sluice/protocol/messages/api/42-delete-groups.js';

/** Where a parked JoinGroup or SyncGroup gets its answer. */
export type ParkedReply = (released: Released<ParkedReply>) => void;

export type Coordinator = GroupCoordinator<ParkedReply>;

export interface GroupCoordinatorServiceOptions {
  readonly log: CoordinatorLog;
  /** `offsets.topic.num.partitions`. */
  readonly numPartitions: number;
  readonly config: Partial<GroupCoordinatorConfig>;
  /** Whether this broker leads partition `partition` of `__consumer_offsets` now. */
  readonly leads: (partition: number) => boolean;
  readonly logger: Logger;
  readonly clock?: () => number;
  /** Where share-partition state lives (the share coordinator); until it is wired, every call fails COORDINATOR_NOT_AVAILABLE. */
  readonly sharePersister?: SharePersister;
}

export class GroupCoordinatorService {
  private readonly runtime: CoordinatorRuntime<Coordinator, Released<ParkedReply>>;
  /** Share group operations that need the persister. */
  readonly share: ShareGroupService<ParkedReply>;

  constructor(private readonly options: GroupCoordinatorServiceOptions) {
    this.runtime = new CoordinatorRuntime({
      topic: OFFSETS_TOPIC,
      log: options.log,
      newShard: () => new GroupCoordinator<ParkedReply>({ config: options.config }),
      deliver: (released) => released.to(released),
      logger: options.logger,
      ...(options.clock === undefined ? {} : { clock: options.clock }),
    });
    this.share = new ShareGroupService<ParkedReply>(this, options.sharePersister ?? UNAVAILABLE_SHARE_PERSISTER, options.logger);
  }

  /**
   * DeleteGroups of one group: a share group's share-partition state is deleted through the
   * persister first (a failure keeps the group), then the group and its offsets are tombstoned.
   */
  async deleteGroup(groupId: string, topics: TopicsImage): Promise<DeleteGroupsResponseDeletableGroupResultInput> {
    try {
      const failure = await this.share.deleteState(groupId, topics);
      if (failure !== null) return { groupId, errorCode: failure.errorCode, errorMessage: null };
      const response = await this.run(groupId, (coordinator) => coordinator.deleteGroups({ groupsNames: [groupId] }));
      return response.results?.[0] ?? { groupId, errorCode: ErrorCode.NONE, errorMessage: null };
    } catch (err) {
      return { groupId, errorCode: kafkaErrorCode(err), errorMessage: null };
    }
  }

  partitionOf(groupId: string): number {
    return partitionFor(groupId, this.options.numPartitions);
  }

  /** The partition of `groupId`, if this broker coordinates it; NOT_COORDINATOR otherwise. */
  private coordinated(groupId: string): number {
    const partition = this.partitionOf(groupId);
    // Before `__consumer_offsets` exists nobody leads it: the first operation creates it here.
    if (this.options.log.exists() && !this.options.leads(partition)) {
      throw new KafkaError(ErrorCode.NOT_COORDINATOR, `this broker does not lead ${OFFSETS_TOPIC}-${partition}`);
    }
    return partition;
  }

  /**
   * Follows the leadership of `__consumer_offsets`: loads the shards of the partitions this broker
   * leads and unloads the others, as a broker does on LeaderAndIsr (and at start-up).
   */
  onLeadership(): void {
    if (!this.options.log.exists()) return;
    for (let p = 0; p < this.options.numPartitions; p++) {
      // A failed load is logged by the runtime; the next operation on the partition retries it.
      if (this.options.leads(p)) this.runtime.load(p).catch(() => undefined);
      else this.runtime.unload(p);
    }
  }

  /** Creates `__consumer_offsets` on first use and loads `groupId`'s coordinator if this broker leads it (FindCoordinator starts this early). */
  async prepare(groupId: string): Promise<void> {
    const partition = this.partitionOf(groupId);
    await this.options.log.ensureTopic();
    // In a cluster another broker may lead the group's partition: it loads the coordinator there.
    if (this.options.leads(partition)) await this.runtime.load(partition);
  }

  /**
   * Applies an operation to `groupId`'s coordinator in arrival order and resolves with its
   * response once it is durable (see `CoordinatorRuntime.run`).
   */
  async run<R>(groupId: string, op: (c: Coordinator, now: number) => CoordinatorResult<R, ParkedReply>): Promise<R> {
    const partition = this.coordinated(groupId);
    return this.runtime.run(partition, (c, now): ShardResult<R, Released<ParkedReply>> => op(c, now));
  }

  /** Like `run`, for JoinGroup and SyncGroup: a parked request resolves when a later operation answers it. */
  runParkable<R>(
    groupId: string,
    api: Released<ParkedReply>['api'],
    op: (c: Coordinator, now: number, replyTo: ParkedReply) => CoordinatorResult<R | null, ParkedReply>,
  ): Promise<R> {
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

  /**
   * TxnOffsetCommit: applied in order like `run`, its records appended as one transactional batch
   * of the request's producer; the offsets stay pending until the transaction's end marker.
   * Rejects as `run` does (NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE). `_apiVersion`: v5+ also
   * adds the partition to the transaction (KIP-890), a verification with the transaction
   * coordinator this broker does not make yet.
   */
  async commitTransactionalOffsets(request: TxnOffsetCommitRequestData, _apiVersion: number): Promise<TxnOffsetCommitResponseDataInput> {
    const partition = this.coordinated(request.groupId);
    const producer = { producerId: request.producerId, producerEpoch: request.producerEpoch };
    return this.runtime.runTransactional(partition, producer, (c, now) => c.commitTransactionalOffsets(request, now));
  }

  /**
   * Ends a transaction in partition `partition` of `__consumer_offsets` (WriteTxnMarkers): writes
   * the marker and commits or drops the producer's pending offsets. Resolves with the error code:
   * NONE once the marker is durable, NOT_COORDINATOR when this broker does not lead the partition,
   * the log's code when it refused the marker, COORDINATOR_NOT_AVAILABLE while the coordinator
   * reloads. (Kafka's WriteTxnMarkers answers the coordinator errors as NOT_LEADER_OR_FOLLOWER.)
   */
  async completeTransaction(partition: number, marker: TxnMarker): Promise<number> {
    if (!this.options.leads(partition)) return ErrorCode.NOT_COORDINATOR;
    try {
      await this.runtime.completeTransaction(partition, marker);
      return ErrorCode.NONE;
    } catch (err) {
      return kafkaErrorCode(err);
    }
  }

  /** A read-only operation: computed in order with the writes, answered once what it saw is durable. */
  async read<R>(groupId: string, op: (c: Coordinator) => R): Promise<R> {
    return this.runtime.read(this.coordinated(groupId), op);
  }

  /** ListGroups covers every coordinator of this broker: all led partitions are loaded once the topic exists. */
  async listGroups(request: ListGroupsRequestData): Promise<ListGroupsResponseDataInput> {
    this.onLeadership();
    const { values, rejected } = await this.runtime.readLoaded((c) => c.listGroups(request));
    if (rejected.length > 0) throw rejected[0];
    return { errorCode: ErrorCode.NONE, groups: values.flatMap((r) => r.groups ?? []) };
  }

  /**
   * Every group's committed offsets, for the consumer lag metrics. Only coordinators already
   * loaded or loading are asked — a scrape must not create `__consumer_offsets` — and each answers,
   * like any read, once what it showed is durable; one that fails or is dropped meanwhile is left
   * out of this answer (and logged) rather than failing it.
   */
  async committedOffsets(): Promise<GroupOffset[]> {
    const { values, rejected } = await this.runtime.readLoaded((c) => c.committedOffsets());
    for (const reason of rejected) this.options.logger.debug('committed offsets unavailable for metrics', { error: String(reason) });
    const offsets: GroupOffset[] = [];
    // A loop, not push(...): a coordinator may hold more offsets than a call takes arguments.
    for (const list of values) for (const o of list) offsets.push(o);
    return offsets;
  }

  /** Shutdown: timers stop and every parked request is answered NOT_COORDINATOR. */
  close(): void {
    this.runtime.close();
  }
}
