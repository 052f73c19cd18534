/**
 * Which share-partitions of a group have state in the share coordinator, as Kafka's
 * ShareGroupStatePartitionMetadata record keeps it: partitions whose InitializeShareGroupState is
 * under way (`initializing`), those done (`initialized`, the only ones the assignor hands out), and
 * topics whose state is being deleted (`deleting`). Pure values: every change builds a new state.
 */
import type { Assignment } from '../consumer/assignment.js';

export interface TopicPartitionsInfo {
  readonly name: string;
  readonly partitions: ReadonlySet<number>;
  /**
   * When the partitions were sent to the persister (initializing only), so a request that never
   * answered is sent again after `group.share.initialize.retry.interval.ms`. The record does not
   * carry it: replayed entries get 0, which retries them on the group's next heartbeat.
   */
  readonly since: number;
}

export interface SharePartitionsState {
  readonly initializing: ReadonlyMap<string, TopicPartitionsInfo>;
  readonly initialized: ReadonlyMap<string, TopicPartitionsInfo>;
  /** Topic id → topic name. */
  readonly deleting: ReadonlyMap<string, string>;
}

export const EMPTY_SHARE_PARTITIONS: SharePartitionsState = { initializing: new Map(), initialized: new Map(), deleting: new Map() };

export interface TopicPartitionsToAdd {
  readonly name: string;
  readonly partitions: Iterable<number>;
}

/** `base` plus `adds`, per topic; an added topic takes the new name and time. */
export function mergeTopics(
  base: ReadonlyMap<string, TopicPartitionsInfo>,
  adds: ReadonlyMap<string, TopicPartitionsToAdd>,
  since: number,
): Map<string, TopicPartitionsInfo> {
  const out = new Map(base);
  for (const [topicId, add] of adds) {
    const partitions = new Set(base.get(topicId)?.partitions ?? []);
    for (const p of add.partitions) partitions.add(p);
    out.set(topicId, { name: add.name, partitions, since });
  }
  return out;
}

/** `base` without the partitions of `remove`; topics left with none are dropped. */
export function removePartitions(base: ReadonlyMap<string, TopicPartitionsInfo>, remove: Assignment): Map<string, TopicPartitionsInfo> {
  const out = new Map<string, TopicPartitionsInfo>();
  for (const [topicId, info] of base) {
    const gone = remove.get(topicId);
    const partitions = gone === undefined ? info.partitions : new Set([...info.partitions].filter((p) => !gone.has(p)));
    if (partitions.size > 0) out.set(topicId, { ...info, partitions });
  }
  return out;
}

/** Partitions of every topic in the map, as an assignment-shaped value. */
export function partitionsOf(topics: ReadonlyMap<string, TopicPartitionsInfo>): Assignment {
  return new Map([...topics].map(([topicId, info]) => [topicId, info.partitions]));
}
