/**
 * This member's ListOffsets LATEST (read_uncommitted) to a partition leader on another broker:
 * the partition ends a group coordinator needs for a share group's lag, as Kafka's
 * NetworkPartitionMetadataClient asks for them. One request per leader; a broker that cannot be
 * reached answers each partition with the error of the exchange.
 */
import { kafkaErrorCode } from '@sluice/protocol/common/kafka-error.js';
import { groupBy } from '@sluice/protocol/common/group-by.js';
import type { Logger } from '../common/logger.js';
import type { PartitionEndAnswer, PartitionEndPeers } from '../metadata/replica-control.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { CONSUMER_REPLICA_ID, LATEST_TIMESTAMP, READ_UNCOMMITTED } from '@sluice/protocol/offset-requests.js';
import { ListOffsetsRequest, ListOffsetsResponse } from '@sluice/protocol/messages/index.js';
import type { BrokerConnections } from './broker-connections.js';
import { type TopicPartition, topicPartitionKey } from '@sluice/protocol/common/topic-partition.js';

const NO_OFFSET = -1n;

export class PartitionEndClient implements PartitionEndPeers {
  constructor(
    private readonly brokers: BrokerConnections,
    private readonly log: Logger,
  ) {}

  async latestOffsets(brokerId: number, partitions: ReadonlyArray<TopicPartition>): Promise<PartitionEndAnswer[]> {
    const failed = (errorCode: number): PartitionEndAnswer[] => partitions.map(() => ({ errorCode, offset: NO_OFFSET }));
    try {
      const connection = await this.brokers.connect(brokerId);
      // A broker the metadata does not know (yet): its leadership is about to be learnt.
      if (connection === null) return failed(ErrorCode.LEADER_NOT_AVAILABLE);
      const response = await connection.request(ListOffsetsRequest, ListOffsetsResponse, () => ({
        replicaId: CONSUMER_REPLICA_ID,
        isolationLevel: READ_UNCOMMITTED,
        topics: [
          ...groupBy(
            partitions,
            (p) => p.topic,
            (p) => p.partition,
          ),
        ].map(([name, indexes]) => ({
          name,
          partitions: indexes.map((partitionIndex) => ({ partitionIndex, timestamp: LATEST_TIMESTAMP })),
        })),
      }));
      const answered = new Map<string, PartitionEndAnswer>();
      for (const t of response.topics)
        for (const p of t.partitions)
          answered.set(topicPartitionKey(t.name, p.partitionIndex), { errorCode: p.errorCode, offset: p.offset });
      return partitions.map(
        (p) =>
          answered.get(topicPartitionKey(p.topic, p.partition)) ?? { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, offset: NO_OFFSET },
      );
    } catch (err) {
      this.log.warn('ListOffsets to a peer failed; the connection is dropped', { brokerId, error: (err as Error).message });
      this.brokers.reset(brokerId);
      const code = kafkaErrorCode(err);
      return failed(code === ErrorCode.UNKNOWN_SERVER_ERROR ? ErrorCode.NETWORK_EXCEPTION : code);
    }
  }
}
