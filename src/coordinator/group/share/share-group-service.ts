/**
 * The share group operations that need the share coordinator (main thread): the group
 * coordinator decides, the `SharePersister` keeps share-partition state, and this runs the
 * persister calls between coordinator steps, as Kafka 4.4's GroupCoordinatorService does:
 *
 * - ShareGroupHeartbeat answers at once; the share-partitions it marked initializing are then
 *   initialized in the background (start offset -1) and reported back: initialized ones become
 *   assignable, failed ones are uninitialized for a later heartbeat to retry.
 * - DescribeShareGroupOffsets reads each share-partition's summary, and its lag from the partition's
 *   end (KIP-1226).
 * - AlterShareGroupOffsets initializes the partitions at the new start offsets.
 * - DeleteShareGroupOffsets and DeleteGroups delete share-partition state, then the records.
 */
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import type { Logger } from '../../../common/logger.js';
import { ZERO_UUID } from '@sluice/protocol/common/uuid.js';
import type {
  ShareGroupHeartbeatRequestData,
  ShareGroupHeartbeatResponseDataInput,
} from '@sluice/protocol/messages/api/76-share-group-heartbeat.js';
import type {
  DescribeShareGroupOffsetsRequestDescribeShareGroupOffsetsRequestGroup,
  DescribeShareGroupOffsetsResponseDescribeShareGroupOffsetsResponseGroupInput,
  DescribeShareGroupOffsetsResponseDescribeShareGroupOffsetsResponseTopicInput,
} from '@sluice/protocol/messages/api/90-describe-share-group-offsets.js';
import type {
  AlterShareGroupOffsetsRequestData,
  AlterShareGroupOffsetsResponseDataInput,
} from '@sluice/protocol/messages/api/91-alter-share-group-offsets.js';
import type {
  DeleteShareGroupOffsetsRequestData,
  DeleteShareGroupOffsetsResponseDataInput,
  DeleteShareGroupOffsetsResponseDeleteShareGroupOffsetsResponseTopicInput,
} from '@sluice/protocol/messages/api/92-delete-share-group-offsets.js';
import { ErrorCode, ERRORS } from '@sluice/protocol/errors.js';
import type { SharePersister, ShareStateSummary } from '../../share/share-state-persister.js';
import type { GroupCoordinator } from '../group-coordinator.js';
import type { CoordinatorResult } from '../results.js';
import { type Assignment, assignmentOfPairs } from '../consumer/assignment.js';
import type { TopicsImage } from '../consumer/subscribed-topics.js';
import type { ShareInitialization } from './share-initialization.js';
import type { ShareTopicDeletion } from './share-group-admin.js';
import { type TopicPartition, topicPartitionKey } from '@sluice/protocol/common/topic-partition.js';

/** ReadShareGroupStateSummary of a share-partition the persister could not answer: no data. */
const NO_START_OFFSET = -1n;
const NO_LEADER_EPOCH = -1;
/** DescribeShareGroupOffsets v1 lag when it cannot be computed (no start offset or no delivery-complete count). */
const UNKNOWN_LAG = -1n;
/** Admin reads are not a partition leader's: no leader epoch to fence with. */
const ADMIN_LEADER_EPOCH = -1;

/** How the service reaches a group's coordinator (GroupCoordinatorService.run / read). */
export interface ShareGroupRunner<T> {
  run<R>(groupId: string, op: (c: GroupCoordinator<T>, now: number) => CoordinatorResult<R, T>): Promise<R>;
  read<R>(groupId: string, op: (c: GroupCoordinator<T>) => R): Promise<R>;
}

/** A partition's end offset (high watermark), or the error its leader answered for it. */
export interface PartitionEnd {
  readonly errorCode: number;
  readonly offset: bigint;
}

/**
 * The high watermarks of partitions, answered in the order asked: ListOffsets LATEST
 * (read_uncommitted) at each partition's leader, as Kafka's PartitionMetadataClient asks.
 */
export type PartitionEnds = (partitions: ReadonlyArray<TopicPartition>) => Promise<PartitionEnd[]>;

/**
 * KIP-1226's share-partition lag: the records between the start offset and the partition's end
 * whose delivery is not complete; -1 when the summary has no start offset or no count.
 */
export function sharePartitionLag(summary: ShareStateSummary, end: bigint): bigint {
  return lagComputable(summary) ? end - summary.startOffset - BigInt(summary.deliveryCompleteCount ?? 0) : UNKNOWN_LAG;
}

function lagComputable(summary: ShareStateSummary): boolean {
  return summary.startOffset >= 0n && (summary.deliveryCompleteCount ?? -1) >= 0;
}

export interface ShareClient {
  clientId: string;
  /** As Kafka shows it, e.g. `/127.0.0.1`. */
  clientHost: string;
}

function errorOf(err: unknown): { errorCode: number; errorMessage: string } {
  if (err instanceof KafkaError) return { errorCode: err.code, errorMessage: err.message };
  throw err;
}

export class ShareGroupService<T> {
  private readonly background = new Set<Promise<void>>();

  constructor(
    private readonly runner: ShareGroupRunner<T>,
    private readonly persister: SharePersister,
    private readonly logger: Logger,
  ) {}

  /** ShareGroupHeartbeat; rejects as `run` does (NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE). */
  async heartbeat(
    request: ShareGroupHeartbeatRequestData,
    client: ShareClient,
    topics: TopicsImage,
  ): Promise<ShareGroupHeartbeatResponseDataInput> {
    const result = await this.runner.run(request.groupId, (c, now) => c.shareGroupHeartbeat(request, { ...client, now, topics }));
    if (result.initialize !== null) this.inBackground(this.initializeNew(result.initialize, topics));
    return result.response;
  }

  /** Resolves once every background initialization has settled (shutdown, tests). */
  async idle(): Promise<void> {
    while (this.background.size > 0) await Promise.allSettled([...this.background]);
  }

  async describeOffsets(
    request: DescribeShareGroupOffsetsRequestDescribeShareGroupOffsetsRequestGroup,
    topics: TopicsImage,
    ends: PartitionEnds,
  ): Promise<DescribeShareGroupOffsetsResponseDescribeShareGroupOffsetsResponseGroupInput> {
    const { groupId } = request;
    const wanted: Array<{ name: string; topicId: string | null; partitions: number[] }> = [];
    if (request.topics === null) {
      const initialized = await this.runner.read(groupId, (c) => c.shareGroupInitializedPartitions(groupId));
      for (const [topicId, partitions] of initialized) {
        const topic = topics.topicById(topicId);
        if (topic !== undefined) wanted.push({ name: topic.name, topicId, partitions: [...partitions].sort((a, b) => a - b) });
      }
    } else {
      for (const t of request.topics)
        wanted.push({ name: t.topicName, topicId: topics.topic(t.topicName)?.topicId ?? null, partitions: t.partitions });
    }
    const summarized = await Promise.all(
      wanted.map(async (t) => {
        const topicId = t.topicId;
        // A topic that does not exist has no offsets: -1, as OffsetFetch answers, not an error.
        if (topicId === null) return { ...t, summaries: t.partitions.map((partition) => ({ partition, summary: null })) };
        const summaries = await Promise.all(
          t.partitions.map(async (partition): Promise<{ partition: number; summary: ShareStateSummary | null }> => {
            try {
              return { partition, summary: await this.persister.readSummary({ groupId, topicId, partition }, ADMIN_LEADER_EPOCH) };
            } catch (err) {
              this.logger.debug('share-partition summary unavailable', { groupId, topicId, partition, error: errorOf(err).errorMessage });
              return { partition, summary: null };
            }
          }),
        );
        return { ...t, summaries };
      }),
    );
    // One lookup of the partition ends for every share-partition whose lag can be computed, as Kafka's coordinator makes.
    const needEnd = summarized.flatMap((t) =>
      t.summaries.filter((s) => s.summary !== null && lagComputable(s.summary)).map((s) => ({ topic: t.name, partition: s.partition })),
    );
    const answered = needEnd.length === 0 ? [] : await ends(needEnd);
    const endOf = new Map(needEnd.map((p, i) => [topicPartitionKey(p.topic, p.partition), answered[i]!]));
    const described = summarized.map((t): DescribeShareGroupOffsetsResponseDescribeShareGroupOffsetsResponseTopicInput => ({
      topicName: t.name,
      topicId: t.topicId ?? ZERO_UUID,
      partitions: t.summaries.map(({ partition: partitionIndex, summary }) => {
        if (summary === null) return { partitionIndex, startOffset: NO_START_OFFSET, leaderEpoch: NO_LEADER_EPOCH, lag: UNKNOWN_LAG };
        const end = endOf.get(topicPartitionKey(t.name, partitionIndex));
        if (end === undefined)
          return { partitionIndex, startOffset: summary.startOffset, leaderEpoch: summary.leaderEpoch, lag: UNKNOWN_LAG };
        if (end.errorCode !== ErrorCode.NONE)
          return { partitionIndex, errorCode: end.errorCode, errorMessage: ERRORS.get(end.errorCode)?.message ?? null };
        return {
          partitionIndex,
          startOffset: summary.startOffset,
          leaderEpoch: summary.leaderEpoch,
          lag: sharePartitionLag(summary, end.offset),
        };
      }),
    }));
    return { groupId, topics: described, errorCode: ErrorCode.NONE, errorMessage: null };
  }

  async alterOffsets(request: AlterShareGroupOffsetsRequestData, topics: TopicsImage): Promise<AlterShareGroupOffsetsResponseDataInput> {
    const { groupId } = request;
    let plan;
    try {
      plan = await this.runner.run(groupId, (c, now) => c.alterShareGroupOffsets(request, topics, now));
    } catch (err) {
      return { ...errorOf(err), responses: [] };
    }
    const outcome = await this.initialize(plan.initialize);
    if (outcome.done.size > 0) await this.runner.run(groupId, (c) => c.initializeShareGroupState(groupId, outcome.done, topics));
    const responses = plan.responses.map((t) => ({
      ...t,
      partitions: (t.partitions ?? []).map((p) => {
        const failure = t.topicId === undefined ? undefined : outcome.failures.get(`${t.topicId}:${p.partitionIndex}`);
        return failure === undefined ? p : { partitionIndex: p.partitionIndex, ...failure };
      }),
    }));
    return { errorCode: ErrorCode.NONE, errorMessage: null, responses };
  }

  async deleteOffsets(request: DeleteShareGroupOffsetsRequestData, topics: TopicsImage): Promise<DeleteShareGroupOffsetsResponseDataInput> {
    const { groupId } = request;
    let plan;
    try {
      plan = await this.runner.run(groupId, (c) => c.deleteShareGroupOffsets(request, topics));
    } catch (err) {
      return { ...errorOf(err), responses: [] };
    }
    const results = await Promise.all(plan.deletions.map(async (d) => ({ deletion: d, failure: await this.deleteTopic(groupId, d) })));
    const deleted = results.filter((r) => r.failure === null).map((r) => r.deletion.topicId);
    if (deleted.length > 0) await this.runner.run(groupId, (c) => c.completeShareTopicDeletion(groupId, deleted));
    const responses: DeleteShareGroupOffsetsResponseDeleteShareGroupOffsetsResponseTopicInput[] = [
      ...plan.refused,
      ...results.map(({ deletion, failure }) => ({
        topicName: deletion.topicName,
        topicId: deletion.topicId,
        errorCode: failure?.errorCode ?? ErrorCode.NONE,
        errorMessage: failure?.errorMessage ?? null,
      })),
    ];
    return { errorCode: ErrorCode.NONE, errorMessage: null, responses };
  }

  /**
   * Deletes a share group's share-partition state ahead of DeleteGroups: null when the group is
   * not a share group or its state is gone, else the error that keeps the group. Rejects with the
   * coordinator's errors (NON_EMPTY_GROUP, NOT_COORDINATOR, ...).
   */
  async deleteState(groupId: string, topics: TopicsImage): Promise<{ errorCode: number; errorMessage: string } | null> {
    const deletions = await this.runner.run(groupId, (c) => c.prepareShareGroupDeletion(groupId, topics));
    if (deletions === null) return null;
    for (const d of deletions) {
      const failure = await this.deleteTopic(groupId, d);
      if (failure !== null) return failure;
    }
    return null;
  }

  private inBackground(work: Promise<void>): void {
    const tracked = work
      .catch((err: unknown) => this.logger.warn('share-partition initialization failed', { error: String(err) }))
      .finally(() => this.background.delete(tracked));
    this.background.add(tracked);
  }

  /** Heartbeat-initiated: successes become assignable, failures go back to uninitialized. */
  private async initializeNew(init: ShareInitialization, topics: TopicsImage): Promise<void> {
    const { groupId } = init;
    const outcome = await this.initialize(init);
    if (outcome.done.size > 0) await this.runner.run(groupId, (c) => c.initializeShareGroupState(groupId, outcome.done, topics));
    if (outcome.failed.size > 0) {
      this.logger.warn('share-partitions not initialized; a later heartbeat retries', {
        groupId,
        failures: [...outcome.failures.entries()].map(([k, e]) => `${k}: ${e.errorMessage}`),
      });
      await this.runner.run(groupId, (c) => c.uninitializeShareGroupState(groupId, outcome.failed));
    }
  }

  private async initialize(
    init: ShareInitialization,
  ): Promise<{ done: Assignment; failed: Assignment; failures: Map<string, { errorCode: number; errorMessage: string }> }> {
    const settled = await Promise.all(
      init.partitions.map(async (p) => {
        try {
          await this.persister.initialize(
            { groupId: init.groupId, topicId: p.topicId, partition: p.partition },
            init.stateEpoch,
            p.startOffset,
          );
          return { p, failure: null };
        } catch (err) {
          return { p, failure: errorOf(err) };
        }
      }),
    );
    const failures = new Map(settled.flatMap((s) => (s.failure === null ? [] : [[`${s.p.topicId}:${s.p.partition}`, s.failure] as const])));
    return {
      done: assignmentOfPairs(settled.filter((s) => s.failure === null).map((s) => [s.p.topicId, s.p.partition] as const)),
      failed: assignmentOfPairs(settled.filter((s) => s.failure !== null).map((s) => [s.p.topicId, s.p.partition] as const)),
      failures,
    };
  }

  /** Deletes every share-partition of one topic; the first failure, or null. */
  private async deleteTopic(groupId: string, d: ShareTopicDeletion): Promise<{ errorCode: number; errorMessage: string } | null> {
    const settled = await Promise.all(
      d.partitions.map(async (partition) => {
        try {
          await this.persister.delete({ groupId, topicId: d.topicId, partition });
          return null;
        } catch (err) {
          return errorOf(err);
        }
      }),
    );
    return settled.find((s) => s !== null) ?? null;
  }
}

/** Until the share coordinator is wired in: every persister call fails as an unavailable coordinator would. */
export const UNAVAILABLE_SHARE_PERSISTER: SharePersister = {
  initialize: unavailable,
  read: unavailable,
  write: unavailable,
  delete: unavailable,
  readSummary: unavailable,
};

function unavailable(): Promise<never> {
  return Promise.reject(new KafkaError(ErrorCode.COORDINATOR_NOT_AVAILABLE, ERRORS.get(ErrorCode.COORDINATOR_NOT_AVAILABLE)!.message));
}
