/**
 * This member's side of the transaction requests between brokers (`TransactionPeers`): a
 * transaction coordinator's WriteTxnMarkers to a partition leader, as Kafka's
 * TransactionMarkerChannelManager sends them, and a leader's AddPartitionsToTxn v4+ to a
 * coordinator, as Kafka's AddPartitionsToTxnManager does. One request per call, over the member's
 * connection to that broker; a failed exchange drops the connection and answers every partition
 * with a retriable error for the caller to retry.
 */
import { kafkaErrorCode } from '@sluice/protocol/common/kafka-error.js';
import { groupBy } from '@sluice/protocol/common/group-by.js';
import type { Logger } from '../common/logger.js';
import type { TopicPartitionError, TransactionPeers, TxnMarkerSpec, TxnPartitionsSpec } from '../metadata/replica-control.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import {
  AddPartitionsToTxnRequest,
  AddPartitionsToTxnResponse,
  WriteTxnMarkersRequest,
  WriteTxnMarkersResponse,
} from '@sluice/protocol/messages/index.js';
import type { KafkaConnection } from '@sluice/client/connection.js';
import type { BrokerConnections } from './broker-connections.js';
import { type TopicPartition, topicPartitionKey } from '@sluice/protocol/common/topic-partition.js';

function byTopic(partitions: readonly TopicPartition[]): Array<{ name: string; partitions: number[] }> {
  return [
    ...groupBy(
      partitions,
      (p) => p.topic,
      (p) => p.partition,
    ),
  ].map(([name, indexes]) => ({ name, partitions: indexes }));
}

/** Each partition's answer as the response listed it; one it left out is UNKNOWN_SERVER_ERROR. */
function inOrder(partitions: readonly TopicPartition[], answered: ReadonlyMap<string, number>): TopicPartitionError[] {
  return partitions.map((p) => ({
    ...p,
    errorCode: answered.get(topicPartitionKey(p.topic, p.partition)) ?? ErrorCode.UNKNOWN_SERVER_ERROR,
  }));
}

export class TransactionPeerClient implements TransactionPeers {
  constructor(
    private readonly brokers: BrokerConnections,
    private readonly log: Logger,
  ) {}

  async writeMarkers(brokerId: number, marker: TxnMarkerSpec): Promise<TopicPartitionError[]> {
    return this.exchange(brokerId, marker.partitions, 'WriteTxnMarkers', async (connection) => {
      const response = await connection.request(WriteTxnMarkersRequest, WriteTxnMarkersResponse, () => ({
        markers: [
          {
            producerId: marker.producerId,
            producerEpoch: marker.producerEpoch,
            transactionResult: marker.commit,
            coordinatorEpoch: marker.coordinatorEpoch,
            transactionVersion: marker.transactionVersion,
            topics: byTopic(marker.partitions).map((t) => ({ name: t.name, partitionIndexes: t.partitions })),
          },
        ],
      }));
      const answered = new Map<string, number>();
      for (const m of response.markers)
        for (const t of m.topics) for (const p of t.partitions) answered.set(topicPartitionKey(t.name, p.partitionIndex), p.errorCode);
      return answered;
    });
  }

  async addPartitions(brokerId: number, request: TxnPartitionsSpec): Promise<TopicPartitionError[]> {
    return this.exchange(brokerId, request.partitions, 'AddPartitionsToTxn', async (connection) => {
      const response = await connection.request(AddPartitionsToTxnRequest, AddPartitionsToTxnResponse, () => ({
        transactions: [
          {
            transactionalId: request.transactionalId,
            producerId: request.producerId,
            producerEpoch: request.producerEpoch,
            verifyOnly: request.verifyOnly,
            topics: byTopic(request.partitions),
          },
        ],
      }));
      const answered = new Map<string, number>();
      for (const r of response.resultsByTransaction) {
        for (const t of r.topicResults)
          for (const p of t.resultsByPartition) answered.set(topicPartitionKey(t.name, p.partitionIndex), p.partitionErrorCode);
      }
      if (response.errorCode !== ErrorCode.NONE)
        for (const p of request.partitions) answered.set(topicPartitionKey(p.topic, p.partition), response.errorCode);
      return answered;
    });
  }

  private async exchange(
    brokerId: number,
    partitions: readonly TopicPartition[],
    api: string,
    send: (connection: KafkaConnection) => Promise<ReadonlyMap<string, number>>,
  ): Promise<TopicPartitionError[]> {
    try {
      const connection = await this.brokers.connect(brokerId);
      // A broker the metadata does not know (yet): its partitions' leadership is about to be learnt.
      if (connection === null) return partitions.map((p) => ({ ...p, errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER }));
      return inOrder(partitions, await send(connection));
    } catch (err) {
      this.log.warn(`${api} to a peer failed; the connection is dropped`, { brokerId, error: (err as Error).message });
      this.brokers.reset(brokerId);
      const errorCode = kafkaErrorCode(err) === ErrorCode.UNKNOWN_SERVER_ERROR ? ErrorCode.NETWORK_EXCEPTION : kafkaErrorCode(err);
      return partitions.map((p) => ({ ...p, errorCode }));
    }
  }
}
