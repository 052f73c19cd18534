/**
 * The composition root: builds the configuration, the cluster metadata, the partition admin,
 * the handler registry and the listener. Usable in-process by test suites:
 * `const broker = await Broker.start({ port: 0 })`, `broker.bootstrap`, `await broker.stop()`.
 */
import { Logger } from '../common/logger.js';
import { ClusterMetadata } from '../cluster/cluster-metadata.js';
import { ConfigResolver } from '../cluster/config-resolver.js';
import { DirectoryPartitionAdmin } from '../cluster/directory-partition-admin.js';
import { MetadataStore } from '../cluster/metadata-store.js';
import { loadOrFormatLogDirs } from './log-dir-format.js';
import { TopicAdmin } from '../cluster/topic-admin.js';
import type { ClusterContext } from '../handlers/cluster-context.js';
import { withClusterContext } from '../handlers/cluster-context.js';
import { HANDLERS } from '../handlers/index.js';
import { HandlerRegistry } from '../handlers/registry.js';
import { RequestDispatcher } from '../handlers/request-dispatcher.js';
import { Listener } from '../network/listener.js';
import { buildConfig, type BrokerConfig } from './config.js';

export interface BrokerStartOptions {
  readonly host?: string;
  /** 0 picks a free port. */
  readonly port?: number;
  /** Kafka configuration keys, e.g. `{ 'socket.request.max.bytes': '1048576' }`. */
  readonly config?: Readonly<Record<string, string>>;
}

export class Broker {
  private constructor(
    readonly config: BrokerConfig,
    private readonly listener: Listener,
    private readonly partitionAdmin: DirectoryPartitionAdmin,
    readonly host: string,
    readonly port: number,
  ) {}

  get bootstrap(): string {
    return `${this.host.includes(':') ? `[${this.host}]` : this.host}:${this.port}`;
  }

  static async start(options: BrokerStartOptions = {}): Promise<Broker> {
    const settings = new Map(Object.entries(options.config ?? {}));
    if (options.host !== undefined || options.port !== undefined) {
      settings.set('listeners', `PLAINTEXT://${options.host ?? '127.0.0.1'}:${options.port ?? 9092}`);
    }
    const { config, unknownKeys } = buildConfig(settings);
    const log = new Logger('broker');
    for (const key of unknownKeys) log.warn('ignoring unknown configuration key', { key });

    const clusterId = loadOrFormatLogDirs(config.logDirs, config.nodeId, config.clusterId);
    const partitionAdmin = new DirectoryPartitionAdmin(config.logDirs, new Logger('partitions'));
    let cluster: ClusterContext | null = null;
    const registry = new HandlerRegistry(
      withClusterContext(HANDLERS, () => {
        if (cluster === null) throw new Error('request served before the cluster metadata was loaded');
        return cluster;
      }),
    );
    const listener = new Listener(
      new RequestDispatcher(registry, new Logger('handlers')),
      {
        maxFrameBytes: config.socketRequestMaxBytes,
        maxInFlightRequests: config.maxInFlightRequests,
        idleTimeoutMs: config.connectionsMaxIdleMs,
      },
      new Logger('network'),
    );
    const bound = await listener.listen(config.listenerHost, config.listenerPort);
    try {
      const node = { nodeId: config.nodeId, host: config.advertisedHost, port: config.advertisedPort === 0 ? bound.port : config.advertisedPort, rack: null };
      const metadata = new ClusterMetadata(clusterId, node, new MetadataStore(config.logDirs[0]!));
      const configs = new ConfigResolver(config.staticSettings, metadata);
      const admin = new TopicAdmin(metadata, configs, partitionAdmin, {
        numPartitions: config.numPartitions,
        replicationFactor: config.defaultReplicationFactor,
        deleteTopicEnable: config.deleteTopicEnable,
      });
      await admin.openAll();
      cluster = { metadata, admin, configs, autoCreateTopicsEnable: config.autoCreateTopicsEnable };
      log.info('broker started', { clusterId, nodeId: node.nodeId, advertised: `${node.host}:${node.port}`, topics: metadata.topics().length });
    } catch (err) {
      await listener.close();
      throw err;
    }
    return new Broker(config, listener, partitionAdmin, bound.host, bound.port);
  }

  async stop(): Promise<void> {
    await this.listener.close();
    await this.partitionAdmin.close();
  }
}
