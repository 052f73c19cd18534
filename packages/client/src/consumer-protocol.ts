/**
 * The consumer protocol bytes a classic group's members exchange through the coordinator
 * (JoinGroup metadata, SyncGroup assignment), as DescribeGroups hands them back. They are the
 * generated `ConsumerProtocolAssignment` schema behind an int16 version prefix; a version newer
 * than the schema is read as the newest one known, as Kafka's `ConsumerProtocol` does, because
 * later versions only append fields.
 */
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { ConsumerProtocolAssignment } from '@sluice/protocol/messages/index.js';
import { readVersioned } from '@sluice/protocol/primitives/versioned-schema.js';

export interface TopicPartitions {
  readonly topic: string;
  readonly partitions: readonly number[];
}

/** A member's assigned partitions; empty bytes (no assignment yet, or a group not Stable) are none. */
export function decodeMemberAssignment(bytes: Buffer): TopicPartitions[] {
  if (bytes.length === 0) return [];
  try {
    const { data } = readVersioned(ConsumerProtocolAssignment, bytes);
    return data.assignedPartitions.map((t) => ({ topic: t.topic, partitions: t.partitions }));
  } catch (err) {
    throw new KafkaError(
      ErrorCode.CORRUPT_MESSAGE,
      `member assignment is not in the consumer protocol: ${err instanceof Error ? err.message : String(err)}`,
      { cause: err },
    );
  }
}
