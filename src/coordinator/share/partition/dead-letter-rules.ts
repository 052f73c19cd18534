/**
 * Kafka 4.4's rules for share-group dead-letter records (KIP-1191), pure: whether a group's
 * dead-letter topic may be written (`ShareGroupDLQStateManager.ProduceRequestHandler.validateDlqTopic`,
 * checked at every write because every setting involved is dynamic), which of its partitions a
 * source partition's records go to, and the context headers each dead-letter record carries.
 */
import type { RecordHeaderInput } from '@sluice/protocol/records/index.js';
import { DEAD_LETTER_MESSAGES, type DeadLetterCause } from './dead-letter.js';

/** The topic config that opts a topic in as a dead-letter topic (Kafka's `TopicConfig.ERRORS_DEADLETTERQUEUE_GROUP_ENABLE_CONFIG`). */
export const DLQ_TOPIC_ENABLE = 'errors.deadletterqueue.group.enable';

/** Kafka's context headers (`ProduceRequestHandler.HEADER_DLQ_ERRORS_*`). */
export const DLQ_HEADERS = {
  topic: '__dlq.errors.topic',
  partition: '__dlq.errors.partition',
  offset: '__dlq.errors.offset',
  group: '__dlq.errors.group',
  deliveryCount: '__dlq.errors.delivery.count',
  message: '__dlq.errors.message',
} as const;

/** What one write needs to know of the group's and the cluster's dead-letter settings. */
export interface DeadLetterSettings {
  /** The group's `errors.deadletterqueue.topic.name`; blank: none. */
  readonly topic: string;
  /** The group's `errors.deadletterqueue.copy.record.enable`: the source record's key and value are copied. */
  readonly copyRecord: boolean;
  /** The broker's `errors.deadletterqueue.topic.name.prefix` (Kafka's default `dlq.`); empty: any name. */
  readonly prefix: string;
  /** The broker's `errors.deadletterqueue.auto.create.topics.enable` (default false). */
  readonly autoCreate: boolean;
}

/** The dead-letter topic as it exists, or null when it does not. */
export interface DeadLetterTopicState {
  /** Its `errors.deadletterqueue.group.enable`. */
  readonly enabled: boolean;
}

/**
 * Kafka's message for the first rule a write breaks, in Kafka's order (a named topic, not an
 * internal-looking name, opted in if it exists, creatable if it does not, under the prefix), or
 * null when the topic may be written (and, when it does not exist, created).
 */
export function deadLetterTopicProblem(groupId: string, settings: DeadLetterSettings, topic: DeadLetterTopicState | null): string | null {
  const name = settings.topic;
  if (name === '') return `Configured DLQ topic name in share group: ${groupId} is empty.`;
  if (name.startsWith('__')) return `Configured DLQ topic name in share group: ${groupId} cannot start with __, topic: ${name}.`;
  if (topic !== null && !topic.enabled) return `DLQ is not enabled on configured DLQ topic for share group: ${groupId}, topic: ${name}.`;
  if (topic === null && !settings.autoCreate)
    return `DLQ topic does not exist and auto create is disabled on cluster for share group: ${groupId}, topic: ${name}.`;
  if (settings.prefix !== '' && !name.startsWith(settings.prefix))
    return `Configured DLQ topic name does not comply with the DLQ topic prefix in share group: ${groupId}, topic: ${name}, prefix: ${settings.prefix}.`;
  return null;
}

/** The topic configs Kafka creates a dead-letter topic with (its partitions and replicas are the broker's defaults). */
export const DLQ_TOPIC_CONFIGS: ReadonlyMap<string, string> = new Map([
  [DLQ_TOPIC_ENABLE, 'true'],
  // Every dead-letter record carries its write time: a LogAppendTime default must not replace it.
  ['message.timestamp.type', 'CreateTime'],
]);

/** Records of source partition `partition` all go to one dead-letter partition, as Kafka routes them. */
export function deadLetterPartition(sourcePartition: number, dlqPartitions: number): number {
  return sourcePartition % dlqPartitions;
}

/** Where a dead-letter record came from and why it is there. */
export interface DeadLetterContext {
  /** The source topic's name (its id when the name is no longer known, as Kafka falls back). */
  readonly topic: string;
  readonly partition: number;
  readonly offset: bigint;
  readonly groupId: string;
  readonly deliveryCount: number;
  readonly cause: DeadLetterCause;
}

/** The six context headers of one dead-letter record, in Kafka's order, as UTF-8 text. */
export function deadLetterHeaders(c: DeadLetterContext): RecordHeaderInput[] {
  const text = (s: string): Buffer => Buffer.from(s, 'utf8');
  return [
    { key: DLQ_HEADERS.topic, value: text(c.topic) },
    { key: DLQ_HEADERS.partition, value: text(String(c.partition)) },
    { key: DLQ_HEADERS.offset, value: text(String(c.offset)) },
    { key: DLQ_HEADERS.group, value: text(c.groupId) },
    { key: DLQ_HEADERS.deliveryCount, value: text(String(c.deliveryCount)) },
    { key: DLQ_HEADERS.message, value: text(DEAD_LETTER_MESSAGES[c.cause]) },
  ];
}

/**
 * The source offset a dead-letter record stands for, when it came from this group and source
 * partition: how a new leader finds what its predecessor already wrote.
 */
export function deadLetterSource(
  headers: readonly { readonly key: string; readonly value: Buffer | null }[],
  groupId: string,
  topic: string,
  partition: number,
): bigint | null {
  const value = (key: string): string | null => headers.find((h) => h.key === key)?.value?.toString('utf8') ?? null;
  if (value(DLQ_HEADERS.group) !== groupId || value(DLQ_HEADERS.topic) !== topic || value(DLQ_HEADERS.partition) !== String(partition))
    return null;
  const offset = value(DLQ_HEADERS.offset);
  return offset !== null && /^\d+$/.test(offset) ? BigInt(offset) : null;
}
