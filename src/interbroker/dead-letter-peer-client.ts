/**
 * A cluster member's Produce to the leader of a share group's dead-letter partition on another
 * broker, as Kafka's `ShareGroupDLQStateManager` sends it from its own network client: one batch,
 * acks=all, over the member's connection to that broker. A failed exchange drops the connection
 * and answers NETWORK_EXCEPTION (or the exchange's error) for the writer to retry.
 */
import { kafkaErrorCode } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { ProduceRequest, ProduceResponse } from '@sluice/protocol/messages/index.js';
import type { Logger } from '../common/logger.js';
import type { BrokerConnections } from './broker-connections.js';

/** The partition of a topic, named both ways: Produce v13 names it by id, earlier versions by name. */
export interface PeerPartition {
  readonly topic: string;
  readonly topicId: string;
  readonly partition: number;
}

const ACKS_ALL = -1;

export class DeadLetterPeerClient {
  constructor(
    private readonly brokers: BrokerConnections,
    private readonly log: Logger,
    /** How long the leader may wait for its in-sync replicas. */
    private readonly ackTimeoutMs: number,
  ) {}

  /** Appends `batch` on broker `brokerId`, the partition's leader; resolves with the partition's error code. */
  async produce(brokerId: number, target: PeerPartition, batch: Buffer): Promise<number> {
    try {
      const connection = await this.brokers.connect(brokerId);
      // A broker the metadata does not know (yet): the partition's leadership is about to be learnt.
      if (connection === null) return ErrorCode.NOT_LEADER_OR_FOLLOWER;
      const response = await connection.request(
        ProduceRequest,
        ProduceResponse,
        () => ({
          transactionalId: null,
          acks: ACKS_ALL,
          timeoutMs: this.ackTimeoutMs,
          topicData: [{ name: target.topic, topicId: target.topicId, partitionData: [{ index: target.partition, records: batch }] }],
        }),
        { timeoutMs: this.ackTimeoutMs + 5_000 },
      );
      const topic = response.responses.find((t) => t.name === target.topic || (t.name === '' && t.topicId === target.topicId));
      return topic?.partitionResponses.find((p) => p.index === target.partition)?.errorCode ?? ErrorCode.UNKNOWN_SERVER_ERROR;
    } catch (err) {
      this.log.warn('Produce of dead-letter records to a peer failed; the connection is dropped', {
        brokerId,
        error: (err as Error).message,
      });
      this.brokers.reset(brokerId);
      const errorCode = kafkaErrorCode(err);
      return errorCode === ErrorCode.UNKNOWN_SERVER_ERROR ? ErrorCode.NETWORK_EXCEPTION : errorCode;
    }
  }
}
