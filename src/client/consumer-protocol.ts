/**
 * The consumer protocol bytes a classic group's members exchange through the coordinator
 * (JoinGroup metadata, SyncGroup assignment), as DescribeGroups hands them back. They are the
 * generated `ConsumerProtocolAssignment` schema behind an int16 version prefix; a version newer
 * than the schema is read as the newest one known, as Kafka's `ConsumerProtocol` does, because
 * later versions only append fields.
 */
import { KafkaError } from '../common/kafka-error.js';
import { ErrorCode } from '../protocol/errors.js';
import { ConsumerProtocolAssignment } from '../protocol/messages/index.js';
import { Reader } from '../protocol/primitives/reader.js';

export interface TopicPartitions {
  readonly topic: string;
  readonly partitions: readonly number[];
}

/** A member's assigned partitions; empty bytes (no assignment yet, or a group not Stable) are none. */
export function decodeMemberAssignment(bytes: Buffer): TopicPartitions[] {
  if (bytes.length === 0) return [];
  try {
    const r = new Reader(bytes);
    const version = r.int16();
    if (version < 0) throw new Error(`negative version ${version}`);
    const data = ConsumerProtocolAssignment.read(r, Math.min(version, ConsumerProtocolAssignment.validVersions.hi));
    return data.assignedPartitions.map((t) => ({ topic: t.topic, partitions: t.partitions }));
  } catch (err) {
    throw new KafkaError(ErrorCode.CORRUPT_MESSAGE, `member assignment is not in the consumer protocol: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}
