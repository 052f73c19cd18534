/**
 * The coordinators' internal topics as the composition root wires them: their creation spec and
 * the `InternalTopicPartitions` port over the topic admin (creation) and the partition owners
 * (appends and reads, routed to each partition's worker).
 */
import type { TopicAdmin } from '../metadata/admin/topic-admin.js';
import type { InternalTopicPartitions, InternalTopicSpec } from '../coordinator/runtime/coordinator-log.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { CONSUMER_OFFSETS_TOPIC, SHARE_GROUP_STATE_TOPIC, TRANSACTION_STATE_TOPIC } from '@sluice/protocol/internal-topics.js';
import type { AppendReply } from '../partitions/partition-data.js';
import type { AcksWaitRequest } from '../partitions/partition-protocol.js';
import type { PartitionService } from '../partitions/partition-service.js';
import type { ProducePurgatory } from '../partitions/produce-purgatory.js';
import { EARLIEST_TIMESTAMP } from '@sluice/protocol/offset-requests.js';
import { leaderEpochOf, NO_EPOCH_CHECK, offsetOf, wireOffset } from '@sluice/protocol/common/offsets.js';

/** Kafka's `offsets.topic.segment.bytes` default. */
const OFFSETS_SEGMENT_BYTES = '104857600';
/** Coordinator records are committed once every in-sync replica has them, as Kafka's coordinators append. */
const ACKS_ALL = -1;
/** Kafka's `offsets.commit.timeout.ms` default: how long a coordinator's append waits for the in-sync replicas. */
const COMMIT_TIMEOUT_MS = 5000;

/** `__consumer_offsets` as Kafka creates it: compacted, 100 MiB segments, batches kept as written. */
export function offsetsTopicSpec(numPartitions: number): InternalTopicSpec {
  return {
    name: CONSUMER_OFFSETS_TOPIC,
    numPartitions,
    configs: new Map([
      ['cleanup.policy', 'compact'],
      ['segment.bytes', OFFSETS_SEGMENT_BYTES],
      ['compression.type', 'producer'],
    ]),
  };
}

/** `transaction.state.log.*`: how `__transaction_state` is created. */
export interface TransactionStateLogSettings {
  readonly numPartitions: number;
  readonly segmentBytes: number;
  readonly minIsr: number;
}

/** `__transaction_state` as Kafka creates it: compacted, uncompressed, its own segment size and min ISR. */
export function transactionStateTopicSpec(settings: TransactionStateLogSettings): InternalTopicSpec {
  return {
    name: TRANSACTION_STATE_TOPIC,
    numPartitions: settings.numPartitions,
    configs: new Map([
      ['cleanup.policy', 'compact'],
      ['segment.bytes', String(settings.segmentBytes)],
      ['min.insync.replicas', String(settings.minIsr)],
      ['compression.type', 'uncompressed'],
    ]),
  };
}

/** `share.coordinator.*`: how `__share_group_state` is created and how long its writes wait. */
export interface ShareCoordinatorSettings {
  readonly numPartitions: number;
  readonly segmentBytes: number;
  readonly minIsr: number;
  readonly snapshotUpdateRecordsPerSnapshot: number;
  /** `share.coordinator.write.timeout.ms`. */
  readonly writeTimeoutMs: number;
  /** `share.coordinator.state.topic.prune.interval.ms`. */
  readonly pruneIntervalMs: number;
  /** `share.coordinator.cold.partition.snapshot.interval.ms`. */
  readonly coldPartitionSnapshotIntervalMs: number;
}

/** `__share_group_state` as Kafka's share coordinator creates it: not compacted, kept forever (only the coordinator prunes it), batches kept as written. */
export function shareGroupStateTopicSpec(settings: ShareCoordinatorSettings): InternalTopicSpec {
  return {
    name: SHARE_GROUP_STATE_TOPIC,
    numPartitions: settings.numPartitions,
    configs: new Map([
      ['cleanup.policy', 'delete'],
      ['compression.type', 'producer'],
      ['segment.bytes', String(settings.segmentBytes)],
      ['min.insync.replicas', String(settings.minIsr)],
      ['retention.ms', '-1'],
    ]),
  };
}

/** `commits`: where an append waits until its followers have it (answered at once on a single broker). */
export function internalTopicPartitions(
  topic: string,
  admin: TopicAdmin,
  partitions: PartitionService,
  commits: ProducePurgatory,
  replicationFactor: number,
  commitTimeoutMs: number = COMMIT_TIMEOUT_MS,
): InternalTopicPartitions {
  /**
   * An acks=all write's answer once the in-sync replicas hold it: its wait is registered before
   * the write goes (its leader may answer it in another op's reply first).
   */
  const committed = async (partition: number, write: (wait: AcksWaitRequest) => Promise<AppendReply>): Promise<AppendReply> => {
    const id = commits.register(topic, partition);
    let reply: AppendReply;
    try {
      reply = await write({ id, timeoutMs: commitTimeoutMs });
    } catch (err) {
      commits.cancel(id);
      throw err;
    }
    const [errorCode] = await commits.settle([id], [reply], commitTimeoutMs);
    return errorCode === null || errorCode === undefined ? reply : { ...reply, errorCode };
  };
  return {
    exists: () => admin.metadata.topic(topic) !== undefined,
    create: (numPartitions, configs) =>
      admin.createTopic(
        { name: topic, numPartitions, replicationFactor, assignments: [], configs: [...configs].map(([name, value]) => ({ name, value })) },
        false,
      ),
    append: async (partition, batch, onAppended) => {
      const reply = await committed(
        partition,
        async (acksWait) =>
          (
            await partitions.appendMany([{ topic, partition, requiredAcks: ACKS_ALL, records: batch, origin: 'coordinator', acksWait }])
          )[0]!,
      );
      if (reply.errorCode === ErrorCode.NONE) onAppended?.(wireOffset(reply.baseOffset));
      return reply.errorCode;
    },
    appendMarker: async (partition, marker) =>
      (await committed(partition, async (acksWait) => (await partitions.writeTxnMarkers([{ topic, partition, ...marker, acksWait }]))[0]!))
        .errorCode,
    // The coordinators count offsets as the record codec does, in bigints: converted here, at their edge.
    logStartOffset: async (partition) => {
      const reply = await partitions.listOffset({ topic, partition }, NO_EPOCH_CHECK, EARLIEST_TIMESTAMP);
      return { errorCode: reply.errorCode, offset: wireOffset(reply.offset) };
    },
    read: async (partition, offset, maxBytes) => {
      const reply = await partitions.readBytes(topic, partition, offsetOf(offset), maxBytes);
      return {
        errorCode: reply.errorCode,
        logEndOffset: wireOffset(reply.logEndOffset),
        leaderEpoch: reply.leaderEpoch,
        bytes: reply.bytes,
      };
    },
    awaitCommitted: async (partition, leaderEpoch, offset) => {
      // Registered first, as an append's: the leader may answer it in another op's reply.
      const id = commits.register(topic, partition);
      const [held] = await partitions.awaitCommit([
        {
          topic,
          partition,
          wait: { id, timeoutMs: commitTimeoutMs },
          leaderEpoch: leaderEpochOf(leaderEpoch),
          requiredOffset: offsetOf(offset),
        },
      ]);
      if (held !== ErrorCode.NONE) {
        commits.cancel(id);
        return held!;
      }
      const [errorCode] = await commits.wait([id], commitTimeoutMs);
      // That answer comes only once the high watermark is there: committed, if by a small ISR.
      if (errorCode === ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND) return ErrorCode.NONE;
      // The followers have not caught up yet: the client asks again, as during any load.
      if (errorCode === ErrorCode.REQUEST_TIMED_OUT) return ErrorCode.COORDINATOR_LOAD_IN_PROGRESS;
      return errorCode!;
    },
  };
}
