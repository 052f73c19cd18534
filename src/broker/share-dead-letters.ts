/**
 * The share groups' dead-letter writer (KIP-1191) as the composition root wires it: the
 * `DeadLetterCluster` port over the metadata, the dynamic configs (the group's
 * `errors.deadletterqueue.*`, the broker's prefix and auto-creation keys, the topic's opt-in), the
 * topic admin and the partition owners, whose appends wait for the in-sync replicas as the
 * coordinators' own appends do.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../common/logger.js';
import type { BrokerMetrics } from '../common/metrics/broker-metrics.js';
import { DeadLetterWriter, type DeadLetterCluster } from '../coordinator/share/partition/dead-letter-writer.js';
import { DLQ_TOPIC_ENABLE } from '../coordinator/share/partition/dead-letter-rules.js';
import type { TopicAdmin } from '../metadata/admin/topic-admin.js';
import type { ConfigResolver } from '../metadata/config/config-resolver.js';
import type { PartitionService } from '../partitions/partition-service.js';
import type { ProducePurgatory } from '../partitions/produce-purgatory.js';
import { internalTopicPartitions } from './internal-topics.js';
import type { DeadLetterPeerClient } from '../interbroker/dead-letter-peer-client.js';
import { ErrorCode } from '@sluice/protocol/errors.js';

/** Kafka's defaults of the two broker keys. */
const DEFAULT_PREFIX = 'dlq.';
/** `-1`: the broker's `num.partitions` and `default.replication.factor`, as Kafka creates the topic. */
const BROKER_DEFAULT = -1;

export interface DeadLetterDeps {
  readonly nodeId: number;
  readonly admin: TopicAdmin;
  readonly configs: ConfigResolver;
  readonly partitions: PartitionService;
  readonly commits: ProducePurgatory;
  readonly metrics: BrokerMetrics;
  readonly log: Logger;
  /** A cluster member's Produce to the other brokers; null on a single broker, which leads every partition. */
  readonly peers: () => DeadLetterPeerClient | null;
}

export function shareDeadLetters({ nodeId, admin, configs, partitions, commits, metrics, log, peers }: DeadLetterDeps): DeadLetterWriter {
  // The coordinators' port onto their topics fits a dead-letter topic too: acks=all appends, reads as the leader.
  const topicPartitions = (topic: string) => internalTopicPartitions(topic, admin, partitions, commits, BROKER_DEFAULT);
  const cluster: DeadLetterCluster = {
    settings: (groupId) => {
      const group = configs.groupConfig(groupId);
      return {
        topic: group.errorsDeadLetterQueueTopicName?.trim() ?? '',
        copyRecord: group.errorsDeadLetterQueueCopyRecordEnable ?? false,
        prefix: (configs.brokerValue('errors.deadletterqueue.topic.name.prefix') ?? DEFAULT_PREFIX).trim(),
        autoCreate: configs.brokerValue('errors.deadletterqueue.auto.create.topics.enable')?.trim().toLowerCase() === 'true',
      };
    },
    topicName: (topicId) => admin.metadata.topicById(topicId)?.name ?? null,
    topic: (name) => {
      const topic = admin.metadata.topic(name);
      if (topic === undefined) return null;
      return {
        partitions: topic.partitionCount,
        enabled: configs.topicValue(DLQ_TOPIC_ENABLE, topic.configs)?.trim().toLowerCase() === 'true',
        maxMessageBytes: Number(configs.topicValue('max.message.bytes', topic.configs)),
      };
    },
    createTopic: (name, topicConfigs) => topicPartitions(name).create(BROKER_DEFAULT, topicConfigs),
    append: async (topic, partition, batch) => {
      // The dead-letter partition's leader may be another broker, as Kafka's DLQ manager produces to wherever it is.
      const image = admin.metadata.topic(topic);
      const leader = image?.partitions[partition]?.leader ?? nodeId;
      const remote = leader === nodeId ? null : peers();
      if (remote === null || image === undefined) return topicPartitions(topic).append(partition, batch);
      if (leader < 0) return ErrorCode.LEADER_NOT_AVAILABLE;
      return remote.produce(leader, { topic, topicId: image.topicId, partition }, batch);
    },
    logStartOffset: (topic, partition) => topicPartitions(topic).logStartOffset(partition),
    read: (topic, partition, offset, maxBytes) => topicPartitions(topic).read(partition, offset, maxBytes),
    sleep: (ms) => sleep(ms, undefined, { ref: false }),
    now: () => Date.now(),
  };
  return new DeadLetterWriter(cluster, log, (groupId, written, failed) => metrics.shareDeadLetters(groupId, written, failed));
}
