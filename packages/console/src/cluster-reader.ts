/**
 * What the console asks of a cluster, as one narrow interface: the API handlers are written
 * against it, so their unit tests hand them a fake, and `KafkaClusterReader` answers it with
 * Sluice's client against any Kafka-compatible broker.
 */
import {
  ConfigResourceType,
  KafkaAdminClient,
  KafkaConsumerClient,
  type ClusterMetadata,
  type ConfigEntry,
  type ConsumedRecord,
  type KafkaCluster,
} from '@sluice/client/index.js';

export type OffsetBound = 'earliest' | 'latest';

export interface ClusterReader {
  /** Every topic, internal ones included. */
  metadata(): Promise<ClusterMetadata>;
  topicConfigs(topic: string): Promise<ConfigEntry[]>;
  /** The first or next offset of each partition named. */
  offsets(topic: string, partitions: readonly number[], bound: OffsetBound): Promise<Map<number, bigint>>;
  /** Up to `limit` records of one partition from `from`, fewer where the partition ends first. */
  read(topic: string, partition: number, from: bigint, until: bigint, limit: number): Promise<ConsumedRecord[]>;
}

/**
 * Short: a console shows a broker that is down as down within seconds rather than retrying for
 * the client's default half minute while the page waits.
 */
const RETRY_TIMEOUT_MS = 5_000;
/** Fetch long-poll: a read stops at the partition's end, so it never needs to wait for more. */
const MAX_WAIT_MS = 100;

export class KafkaClusterReader implements ClusterReader {
  private readonly admin: KafkaAdminClient;

  constructor(private readonly cluster: KafkaCluster) {
    this.admin = new KafkaAdminClient(cluster);
  }

  metadata(): Promise<ClusterMetadata> {
    return this.cluster.metadata(null);
  }

  topicConfigs(topic: string): Promise<ConfigEntry[]> {
    return this.admin.describeConfigs({ type: ConfigResourceType.Topic, name: topic });
  }

  offsets(topic: string, partitions: readonly number[], bound: OffsetBound): Promise<Map<number, bigint>> {
    return this.consumer(topic).listOffsets(partitions, bound);
  }

  async read(topic: string, partition: number, from: bigint, until: bigint, limit: number): Promise<ConsumedRecord[]> {
    const consumer = this.consumer(topic);
    const positions = new Map([[partition, from]]);
    const records: ConsumedRecord[] = [];
    while (records.length < limit && positions.get(partition)! < until) {
      const before = positions.get(partition);
      const fetched = await consumer.fetch(positions);
      // A fetch that moved nothing (the leader has less than the end it reported a moment ago): stop rather than spin.
      if (fetched.length === 0 && positions.get(partition) === before) break;
      records.push(...fetched.filter((r) => r.offset < until));
    }
    return records.slice(0, limit);
  }

  private consumer(topic: string): KafkaConsumerClient {
    return new KafkaConsumerClient(this.cluster, topic, { maxWaitMs: MAX_WAIT_MS, retryTimeoutMs: RETRY_TIMEOUT_MS });
  }
}
