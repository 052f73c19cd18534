/**
 * A member's requests to the active controller (Kafka's `BrokerToControllerChannelManager` of
 * the ZooKeeper era): the controller is the one the latest UpdateMetadata named, reached over
 * this member's connection to that broker. NOT_CONTROLLER answers are the caller's to retry.
 */
import type { KafkaConnection } from '@sluice/client/connection.js';
import type { MetadataSource } from '../metadata/metadata-image.js';
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import type { BrokerConnections } from './broker-connections.js';

export class ControllerClient {
  constructor(
    private readonly metadata: MetadataSource,
    private readonly brokers: BrokerConnections,
  ) {}

  /** A connection to the current controller; throws NOT_CONTROLLER while none is known. */
  async connect(): Promise<KafkaConnection> {
    const controllerId = this.metadata.image.controllerId;
    const connection = await this.brokers.connect(controllerId);
    if (connection === null) throw new KafkaError(ErrorCode.NOT_CONTROLLER, 'no controller is known yet');
    return connection;
  }

  /** Drops the connection to the controller, after a failed request or at shutdown. */
  close(): void {
    this.brokers.reset(this.metadata.image.controllerId);
  }
}
