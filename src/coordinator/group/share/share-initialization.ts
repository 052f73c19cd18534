/**
 * Share-partitions entering a group's assignment (or reset by AlterShareGroupOffsets) must be
 * initialized in the share coordinator before members get them, as Kafka 4.4's group coordinator
 * does: the coordinator marks them initializing and says which; the service calls
 * `SharePersister.initialize` for each and then reports back which succeeded (initialized) and
 * which failed (back to uninitialized, retried by a later heartbeat).
 */
import type { Assignment } from '../consumer/assignment.js';
import type { TopicsImage } from '../consumer/subscribed-topics.js';
import type { CoordinatorRecord } from '../records.js';
import type { ShareGroup } from './share-group.js';
import type { ShareGroups } from './share-groups.js';
import { mergeTopics, removePartitions, type TopicPartitionsInfo, type TopicPartitionsToAdd } from './share-partitions-state.js';

/** -1: the share-partition has no start offset yet; `share.auto.offset.reset` decides on first fetch. */
export const UNINITIALIZED_START_OFFSET = -1n;

export interface SharePartitionInit {
  readonly topicId: string;
  readonly partition: number;
  readonly startOffset: bigint;
}

/** What the service must send to the persister for one group. */
export interface ShareInitialization {
  readonly groupId: string;
  /** The group epoch, which the share coordinator keeps as the state epoch. */
  readonly stateEpoch: number;
  readonly partitions: readonly SharePartitionInit[];
}

/**
 * Partitions of the group's subscribed topics that are neither initialized nor being initialized
 * (an initialization older than `retryIntervalMs` counts as lost and is sent again).
 */
export function partitionsToInitialize(
  group: ShareGroup,
  image: TopicsImage,
  now: number,
  retryIntervalMs: number,
): Map<string, TopicPartitionsToAdd> {
  const out = new Map<string, TopicPartitionsToAdd>();
  const { initialized, initializing } = group.partitions;
  for (const name of [...group.subscribedTopicNames()].sort()) {
    const topic = image.topic(name);
    if (topic === undefined) continue;
    const pending = initializing.get(topic.topicId);
    const fresh = pending !== undefined && now - pending.since < retryIntervalMs ? pending.partitions : new Set<number>();
    const done = initialized.get(topic.topicId)?.partitions ?? new Set<number>();
    const missing: number[] = [];
    for (let p = 0; p < topic.partitionCount; p++) if (!done.has(p) && !fresh.has(p)) missing.push(p);
    if (missing.length > 0) out.set(topic.topicId, { name: topic.name, partitions: missing });
  }
  return out;
}

/** Records `adds` as initializing (and no longer deleting), as the record the caller appends. */
export function markInitializing(
  groups: ShareGroups,
  group: ShareGroup,
  adds: ReadonlyMap<string, TopicPartitionsToAdd>,
  now: number,
  records: CoordinatorRecord[],
): void {
  const deleting = new Map(group.partitions.deleting);
  for (const topicId of adds.keys()) deleting.delete(topicId);
  const value = {
    initializing: mergeTopics(group.partitions.initializing, adds, now),
    initialized: group.partitions.initialized,
    deleting,
  };
  groups.write({ kind: 'state-partitions', groupId: group.groupId, value }, records);
}

/** The persister initialized `done`: they become assignable. */
export function markInitialized(
  groups: ShareGroups,
  group: ShareGroup,
  done: Assignment,
  image: TopicsImage,
  records: CoordinatorRecord[],
): void {
  const adds = new Map<string, TopicPartitionsToAdd>();
  for (const [topicId, partitions] of done) {
    const name = group.partitions.initializing.get(topicId)?.name ?? image.topicById(topicId)?.name ?? '<UNKNOWN>';
    adds.set(topicId, { name, partitions });
  }
  const initialized: Map<string, TopicPartitionsInfo> = mergeTopics(group.partitions.initialized, adds, 0);
  const value = { initializing: removePartitions(group.partitions.initializing, done), initialized, deleting: group.partitions.deleting };
  groups.write({ kind: 'state-partitions', groupId: group.groupId, value }, records);
}

/** The persister failed `failed`: they are uninitialized again, for a later heartbeat to retry. */
export function markUninitialized(groups: ShareGroups, group: ShareGroup, failed: Assignment, records: CoordinatorRecord[]): void {
  const initializing = removePartitions(group.partitions.initializing, failed);
  if (
    initializing.size === group.partitions.initializing.size &&
    [...initializing].every(([id, info]) => group.partitions.initializing.get(id)?.partitions.size === info.partitions.size)
  )
    return;
  groups.write({ kind: 'state-partitions', groupId: group.groupId, value: { ...group.partitions, initializing } }, records);
}
