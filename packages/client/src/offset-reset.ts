/**
 * Where `--reset-offsets` moves a group's offsets, after Kafka's GroupOffsetsResetter: to the
 * log start or end, to the first offset at a time (the end when nothing is that recent), to an
 * absolute offset, or shifted from the committed one. Absolute and shifted targets are clamped
 * to [log start, log end], as Kafka does, so a reset never points outside the log.
 */
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import type { KafkaCluster } from './cluster.js';
import type { TopicPartitions } from './consumer-protocol.js';
import type { PartitionOffset } from './group-admin-client.js';
import { listPartitionOffsets } from './partition-offsets.js';
import { topicPartitionKey } from '@sluice/protocol/common/topic-partition.js';

export type ResetSpec =
  | { readonly to: 'earliest' }
  | { readonly to: 'latest' }
  | { readonly to: 'offset'; readonly offset: bigint }
  | { readonly to: 'shift'; readonly by: bigint }
  | { readonly to: 'datetime'; readonly timestamp: bigint };

export interface PartitionPosition {
  readonly logStart: bigint;
  readonly logEnd: bigint;
  /** The group's committed offset, if it has one. */
  readonly committed?: bigint;
  /** For `datetime`: the first offset at or after the time (the log end if none). */
  readonly atTimestamp?: bigint;
}

/** The new offset for one partition; null when `shift` has no committed offset to shift from. */
export function resetTarget(spec: ResetSpec, p: PartitionPosition): bigint | null {
  const clamp = (o: bigint): bigint => (o < p.logStart ? p.logStart : o > p.logEnd ? p.logEnd : o);
  switch (spec.to) {
    case 'earliest':
      return p.logStart;
    case 'latest':
      return p.logEnd;
    case 'offset':
      return clamp(spec.offset);
    case 'shift':
      return p.committed === undefined ? null : clamp(p.committed + spec.by);
    case 'datetime':
      return p.atTimestamp ?? p.logEnd;
  }
}

/** The new offsets of `partitions`, in the order given; `committed` are the group's current offsets. */
export async function planOffsetReset(
  cluster: KafkaCluster,
  partitions: readonly TopicPartitions[],
  spec: ResetSpec,
  committed: readonly PartitionOffset[],
): Promise<PartitionOffset[]> {
  const [starts, ends, atTime] = await Promise.all([
    listPartitionOffsets(cluster, partitions, 'earliest'),
    listPartitionOffsets(cluster, partitions, 'latest'),
    spec.to === 'datetime' ? listPartitionOffsets(cluster, partitions, { timestamp: spec.timestamp }) : Promise.resolve(undefined),
  ]);
  const current = new Map(committed.map((c) => [topicPartitionKey(c.topic, c.partition), c.offset]));
  return partitions.flatMap((t) =>
    t.partitions.map((partition) => {
      const offset = resetTarget(spec, {
        logStart: starts.get(t.topic)!.get(partition)!,
        logEnd: ends.get(t.topic)!.get(partition)!,
        committed: current.get(topicPartitionKey(t.topic, partition)),
        atTimestamp: atTime?.get(t.topic)?.get(partition),
      });
      if (offset === null) {
        throw new KafkaError(
          ErrorCode.INVALID_REQUEST,
          `cannot shift the offset of topic '${t.topic}' partition ${partition}: the group has no committed offset there`,
        );
      }
      return { topic: t.topic, partition, offset };
    }),
  );
}
