/**
 * The client's connections to a cluster: one bootstrap connection for metadata and admin
 * requests (a KRaft broker forwards admin requests to the controller itself), and one per
 * broker node id for the partition leaders that Metadata names. A connection that closed is
 * replaced on next use.
 */
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { MetadataRequest, MetadataResponse } from '@sluice/protocol/messages/index.js';
import type { BrokerAddress } from './broker-address.js';
import { networkError } from './client-errors.js';
import { toClusterMetadata, type ClusterMetadata } from './cluster-metadata.js';
import { KafkaConnection, type ConnectionOptions } from './connection.js';
import { ConnectionSlot } from './connection-slot.js';

export interface ClusterOptions extends Omit<ConnectionOptions, 'host' | 'port'> {
  readonly bootstrap: readonly BrokerAddress[];
}

export interface MetadataOptions {
  /** Kafka's producers ask brokers with `auto.create.topics.enable` to create missing topics. */
  readonly allowAutoTopicCreation?: boolean;
}

export class KafkaCluster {
  private readonly options: ClusterOptions;
  private readonly bootstrapSlot = new ConnectionSlot();
  private readonly nodeSlots = new Map<number, ConnectionSlot>();
  private latest: ClusterMetadata | null = null;

  constructor(options: ClusterOptions) {
    if (options.bootstrap.length === 0) throw new KafkaError(ErrorCode.INVALID_REQUEST, 'no bootstrap server given');
    this.options = options;
  }

  /** Metadata for the named topics, or for every topic when `topics` is null. */
  async metadata(topics: readonly string[] | null, options: MetadataOptions = {}): Promise<ClusterMetadata> {
    const connection = await this.anyConnection();
    const res = await connection.request(MetadataRequest, MetadataResponse, () => ({
      topics: topics === null ? null : topics.map((name) => ({ name })),
      allowAutoTopicCreation: options.allowAutoTopicCreation ?? false,
    }));
    this.latest = toClusterMetadata(res);
    return this.latest;
  }

  /** A connection to any broker of the cluster: the first bootstrap address that answers. */
  anyConnection(): Promise<KafkaConnection> {
    return this.bootstrapSlot.get(() => this.connectToBootstrap());
  }

  /** A connection to the broker with this node id, as the latest metadata locates it. */
  nodeConnection(nodeId: number): Promise<KafkaConnection> {
    let slot = this.nodeSlots.get(nodeId);
    if (slot === undefined) {
      slot = new ConnectionSlot();
      this.nodeSlots.set(nodeId, slot);
    }
    return slot.get(() => {
      const node = this.latest?.brokers.get(nodeId);
      if (node === undefined) {
        return Promise.reject(new KafkaError(ErrorCode.LEADER_NOT_AVAILABLE, `broker ${nodeId} is not in the cluster metadata`));
      }
      return KafkaConnection.connect({ ...this.options, host: node.host, port: node.port });
    });
  }

  close(): void {
    this.bootstrapSlot.close();
    for (const slot of this.nodeSlots.values()) slot.close();
    this.nodeSlots.clear();
  }

  private async connectToBootstrap(): Promise<KafkaConnection> {
    let last: unknown;
    for (const address of this.options.bootstrap) {
      try {
        return await KafkaConnection.connect({ ...this.options, host: address.host, port: address.port });
      } catch (err) {
        last = err;
      }
    }
    if (last instanceof KafkaError) throw last;
    throw networkError(`no bootstrap server answered`, last);
  }
}
