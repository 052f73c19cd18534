/**
 * Broker configuration under Kafka's own keys and defaults (definitions in
 * `metadata/config/config-definitions.ts`). Only keys the broker knows are accepted; others are reported
 * so that a copied server.properties does not silently pretend to configure something. Invalid
 * values are errors naming the key.
 */
import { BROKER_CONFIGS, BROKER_CONFIG_BY_NAME, splitList, validateValue } from '../metadata/config/config-definitions.js';
import { DEFAULT_GROUP_COORDINATOR_CONFIG, type GroupCoordinatorConfig } from '../coordinator/group/config.js';
import { type ShareGroupConfig, shareGroupConfigProblem } from '../coordinator/group/share/share-group-config.js';
import { DEFAULT_TRANSACTION_COORDINATOR_CONFIG, type TransactionCoordinatorConfig } from '../coordinator/transaction/config.js';
import { clientTls, TlsConfigError, type ClientTls } from '@sluice/protocol/common/tls-config.js';
import type { ShareCoordinatorSettings, TransactionStateLogSettings } from './internal-topics.js';
import { buildListeners, LISTENER_PREFIX, ListenerConfigError, type ListenerConfig } from './listener-config.js';
import { AUTHORIZER_CLASS_NAMES, parseSuperUsers, type AuthorizerConfig } from '../security/acl/index.js';
import {
  buildSaslConfig,
  interBrokerCredentials,
  isListenerSaslKey,
  SaslConfigError,
  type SaslClientCredentials,
  type SaslConfig,
} from '../security/sasl/sasl-config.js';

export interface BrokerConfig {
  /** `listeners`, each with its security protocol, advertised address and TLS settings; the first is `Broker.bootstrap`. */
  readonly listeners: readonly ListenerConfig[];
  /** `inter.broker.listener.name` / `security.inter.broker.protocol`: the listener other brokers use. */
  readonly interBrokerListener: ListenerConfig;
  /** `max.connections`: connections accepted at once, over every listener. */
  readonly maxConnections: number;
  /** `max.connections.per.ip`, and `max.connections.per.ip.overrides` by IP address or host name. */
  readonly maxConnectionsPerIp: number;
  readonly maxConnectionsPerIpOverrides: ReadonlyMap<string, number>;
  /** The SASL settings of the SASL listeners, by listener name (none without SASL listeners). */
  readonly sasl: SaslConfig;
  /** `node.id` (or its older name `broker.id`). */
  readonly nodeId: number;
  /** `log.dirs`, else `log.dir`; cluster metadata lives in the first. */
  readonly logDirs: readonly string[];
  readonly numPartitions: number;
  readonly defaultReplicationFactor: number;
  readonly autoCreateTopicsEnable: boolean;
  readonly deleteTopicEnable: boolean;
  /** `socket.request.max.bytes`: frames larger than this close the connection before any allocation. */
  readonly socketRequestMaxBytes: number;
  /** `queued.max.requests` per connection before the broker stops reading from it. */
  readonly maxInFlightRequests: number;
  readonly connectionsMaxIdleMs: number;
  /** `quota.window.num` and `quota.window.size.seconds` (in ms): how client quota rates are measured. */
  readonly quotaWindow: { readonly samples: number; readonly sampleMs: number };
  readonly logRetentionCheckIntervalMs: number;
  /** `log.cleaner.threads`: compaction threads per partition worker (0 disables compaction). */
  readonly logCleanerThreads: number;
  readonly numPartitionWorkers: number;
  /** `replica.lag.time.max.ms`: a follower that has not caught up for this long leaves the ISR. */
  readonly replicaLagTimeMaxMs: number;
  readonly offsetsTopicNumPartitions: number;
  /** The group coordinator's settings from the `group.*` and `offset*` keys. */
  readonly groupCoordinator: GroupCoordinatorConfig;
  /** The `group.share.*` keys (share groups, KIP-932): membership for the group coordinator, locks and delivery for share partitions. */
  readonly shareGroup: ShareGroupConfig;
  /** `transaction.state.log.*`: how `__transaction_state` is created (its replication factor is a cluster member's). */
  readonly transactionStateLog: TransactionStateLogSettings;
  /** `share.coordinator.*`: how `__share_group_state` is created and written (its replication factor is a cluster member's). */
  readonly shareCoordinator: ShareCoordinatorSettings;
  /** The transaction coordinator's settings from the `transaction*` keys. */
  readonly transactionCoordinator: TransactionCoordinatorConfig;
  /** `producer.id.expiration.ms`: how long a partition keeps an idle producer's state. */
  readonly producerIdExpirationMs: number;
  /** `producer.id.expiration.check.interval.ms`: how often partitions forget idle producers. */
  readonly producerIdExpirationCheckIntervalMs: number;
  /** `replica.alter.log.dirs.io.max.bytes.per.second`: the copy rate of moves between log dirs. */
  readonly logDirMoveBytesPerSecond: number;
  /** `cluster.id` when configured; otherwise read from or generated into meta.properties. */
  readonly clusterId: string | null;
  /** `metrics.listener`: where `/metrics` is served (port 0 picks one); null leaves it off. */
  readonly metricsListener: { readonly host: string; readonly port: number } | null;
  /** `metrics.consumergroup.lag.max.partitions`: the most per-partition consumer lag series a scrape exports. */
  readonly metricsLagMaxPartitions: number;
  /** `metrics.producer.clients.max` and `.idle.ms`: the bound on the produce batch breakdown by client id. */
  readonly metricsProducerClients: { readonly maxClients: number; readonly idleMs: number };
  /** Every key set explicitly (validated): DescribeConfigs reports them as STATIC_BROKER_CONFIG. */
  readonly staticSettings: ReadonlyMap<string, string>;
  /** Set when `zookeeper.connect` is: the broker is a member of a ZooKeeper-coordinated cluster. */
  readonly cluster: ClusterMemberConfig | null;
  /** Set when `authorizer.class.name` names Kafka's ACL authorizer; null authorizes every request. */
  readonly authorizer: AuthorizerConfig | null;
}

/** What a cluster member reads beyond a single broker's keys (Kafka's ZooKeeper-era broker keys). */
export interface ClusterMemberConfig {
  readonly zookeeperConnect: string;
  /** The inter-broker listener's name: other brokers are dialled on their endpoint of it. */
  readonly interBrokerListenerName: string;
  /** Set when that listener is SSL or SASL_SSL: the TLS of this broker's connections to the others. */
  readonly interBrokerTls: ClientTls | null;
  /** How this member authenticates to the others when the inter-broker listener is a SASL one. */
  readonly interBrokerSasl: SaslClientCredentials | null;
  readonly zookeeperSessionTimeoutMs: number;
  readonly zookeeperConnectionTimeoutMs: number;
  /** `broker.rack`. */
  readonly rack: string | null;
  readonly numReplicaFetchers: number;
  readonly replicaFetchMaxBytes: number;
  readonly replicaFetchResponseMaxBytes: number;
  readonly replicaFetchWaitMaxMs: number;
  readonly replicaFetchMinBytes: number;
  readonly replicaFetchBackoffMs: number;
  readonly replicaSocketTimeoutMs: number;
  readonly controllerSocketTimeoutMs: number;
  readonly controlledShutdownEnable: boolean;
  readonly controlledShutdownMaxRetries: number;
  readonly controlledShutdownRetryBackoffMs: number;
  readonly offsetsTopicReplicationFactor: number;
  readonly transactionStateLogReplicationFactor: number;
  readonly shareStateTopicReplicationFactor: number;
  readonly autoLeaderRebalanceEnable: boolean;
  readonly leaderImbalanceCheckIntervalMs: number;
  readonly leaderImbalancePerBrokerPercentage: number;
}

export class ConfigError extends Error {
  constructor(
    readonly key: string,
    message: string,
  ) {
    super(`invalid value for ${key}: ${message}`);
    this.name = 'ConfigError';
  }
}

export const DEFAULTS: Readonly<Record<string, string>> = Object.fromEntries(
  BROKER_CONFIGS.filter((d) => d.defaultValue !== null).map((d) => [d.name, d.defaultValue!]),
);

function parseMetricsListener(value: string | undefined): { host: string; port: number } | null {
  if (value === undefined || value === '') return null;
  const m = /^http:\/\/(\[[^\]]+\]|[^:/]+):(\d+)\/?$/.exec(value);
  if (!m) throw new ConfigError('metrics.listener', `'${value}' is not http://host:port`);
  const port = Number(m[2]);
  if (port > 65535) throw new ConfigError('metrics.listener', `port ${port} is out of range`);
  return { host: m[1]!.replace(/^\[|\]$/g, ''), port };
}

export interface LoadedConfig {
  readonly config: BrokerConfig;
  readonly unknownKeys: readonly string[];
}

class Values {
  constructor(private readonly merged: ReadonlyMap<string, string>) {}

  raw(key: string): string | undefined {
    return this.merged.get(key);
  }
  int(key: string): number {
    return Number(this.merged.get(key)!.trim());
  }
  bool(key: string): boolean {
    return this.merged.get(key)!.trim().toLowerCase() === 'true';
  }
}

function nodeId(values: Values, settings: ReadonlyMap<string, string>): number {
  const node = settings.get('node.id');
  const brokerId = settings.get('broker.id');
  if (node !== undefined && brokerId !== undefined && node.trim() !== brokerId.trim()) {
    throw new ConfigError('broker.id', `${brokerId} differs from node.id ${node}`);
  }
  return node === undefined && brokerId !== undefined ? values.int('broker.id') : values.int('node.id');
}

export function buildConfig(settings: ReadonlyMap<string, string>): LoadedConfig {
  const merged = new Map(Object.entries(DEFAULTS));
  const staticSettings = new Map<string, string>();
  const unknownKeys: string[] = [];
  const listenerSaslSettings = new Map<string, string>();
  for (const [k, v] of settings) {
    // Listener-prefixed SASL keys hold JAAS passwords: kept out of what DescribeConfigs reports.
    if (isListenerSaslKey(k)) {
      listenerSaslSettings.set(k, v.trim());
      continue;
    }
    const prefixed = LISTENER_PREFIX.exec(k);
    const def = BROKER_CONFIG_BY_NAME.get(prefixed === null ? k : prefixed[2]!);
    if (prefixed !== null && def !== undefined) {
      // A listener's own value of a key: validated as the key, applied to that listener only.
      const problem = validateValue(def, v);
      if (problem !== null) throw new ConfigError(k, problem);
      continue;
    }
    if (def === undefined) {
      unknownKeys.push(k);
      continue;
    }
    const problem = validateValue(def, v);
    if (problem !== null) throw new ConfigError(k, problem);
    merged.set(k, v.trim());
    staticSettings.set(k, v.trim());
  }
  const values = new Values(merged);
  const { listeners, interBrokerListener } = listenersOf(merged, settings);
  const sasl = saslConfig(values, listenerSaslSettings, listeners);
  const logDirs = splitList(values.raw('log.dirs') ?? values.raw('log.dir')!);
  if (logDirs.length === 0) throw new ConfigError(settings.has('log.dirs') ? 'log.dirs' : 'log.dir', 'at least one directory is required');
  const shareGroup = shareGroupConfig(values);
  const clusterId = values.raw('cluster.id') ?? null;
  if (clusterId !== null && !/^[A-Za-z0-9_-]{22}$/.test(clusterId)) {
    throw new ConfigError('cluster.id', `'${clusterId}' is not a Kafka UUID (22 base64url characters)`);
  }
  return {
    config: {
      listeners,
      interBrokerListener,
      maxConnections: values.int('max.connections'),
      maxConnectionsPerIp: values.int('max.connections.per.ip'),
      maxConnectionsPerIpOverrides: perIpOverrides(values.raw('max.connections.per.ip.overrides') ?? ''),
      sasl,
      nodeId: nodeId(values, settings),
      logDirs,
      numPartitions: values.int('num.partitions'),
      defaultReplicationFactor: values.int('default.replication.factor'),
      autoCreateTopicsEnable: values.bool('auto.create.topics.enable'),
      deleteTopicEnable: values.bool('delete.topic.enable'),
      socketRequestMaxBytes: values.int('socket.request.max.bytes'),
      maxInFlightRequests: values.int('queued.max.requests'),
      connectionsMaxIdleMs: values.int('connections.max.idle.ms'),
      quotaWindow: { samples: values.int('quota.window.num'), sampleMs: values.int('quota.window.size.seconds') * 1000 },
      logRetentionCheckIntervalMs: values.int('log.retention.check.interval.ms'),
      logCleanerThreads: values.int('log.cleaner.threads'),
      numPartitionWorkers: values.int('num.partition.workers'),
      replicaLagTimeMaxMs: values.int('replica.lag.time.max.ms'),
      offsetsTopicNumPartitions: values.int('offsets.topic.num.partitions'),
      groupCoordinator: {
        ...DEFAULT_GROUP_COORDINATOR_CONFIG,
        minSessionTimeoutMs: values.int('group.min.session.timeout.ms'),
        maxSessionTimeoutMs: values.int('group.max.session.timeout.ms'),
        initialRebalanceDelayMs: values.int('group.initial.rebalance.delay.ms'),
        maxGroupSize: values.int('group.max.size'),
        offsetsRetentionMs: values.int('offsets.retention.minutes') * 60_000,
        offsetsRetentionCheckIntervalMs: values.int('offsets.retention.check.interval.ms'),
        offsetMetadataMaxBytes: values.int('offset.metadata.max.bytes'),
        consumerGroupHeartbeatIntervalMs: values.int('group.consumer.heartbeat.interval.ms'),
        consumerGroupSessionTimeoutMs: values.int('group.consumer.session.timeout.ms'),
        consumerGroupMaxSize: values.int('group.consumer.max.size'),
        consumerGroupAssignors: splitList(values.raw('group.consumer.assignors') ?? ''),
        shareGroupHeartbeatIntervalMs: shareGroup.heartbeatIntervalMs,
        shareGroupSessionTimeoutMs: shareGroup.sessionTimeoutMs,
        shareGroupMaxSize: shareGroup.maxSize,
        shareGroupAssignors: shareGroup.assignors,
        shareGroupInitializeRetryIntervalMs: shareGroup.initializeRetryIntervalMs,
      },
      shareGroup,
      transactionStateLog: {
        numPartitions: values.int('transaction.state.log.num.partitions'),
        segmentBytes: values.int('transaction.state.log.segment.bytes'),
        minIsr: values.int('transaction.state.log.min.isr'),
      },
      shareCoordinator: {
        numPartitions: values.int('share.coordinator.state.topic.num.partitions'),
        segmentBytes: values.int('share.coordinator.state.topic.segment.bytes'),
        minIsr: values.int('share.coordinator.state.topic.min.isr'),
        snapshotUpdateRecordsPerSnapshot: values.int('share.coordinator.snapshot.update.records.per.snapshot'),
        writeTimeoutMs: values.int('share.coordinator.write.timeout.ms'),
        pruneIntervalMs: values.int('share.coordinator.state.topic.prune.interval.ms'),
        coldPartitionSnapshotIntervalMs: values.int('share.coordinator.cold.partition.snapshot.interval.ms'),
      },
      transactionCoordinator: {
        ...DEFAULT_TRANSACTION_COORDINATOR_CONFIG,
        transactionMaxTimeoutMs: values.int('transaction.max.timeout.ms'),
        transactionalIdExpirationMs: values.int('transactional.id.expiration.ms'),
        abortTimedOutTransactionsIntervalMs: values.int('transaction.abort.timed.out.transaction.cleanup.interval.ms'),
        removeExpiredTransactionalIdsIntervalMs: values.int('transaction.remove.expired.transaction.cleanup.interval.ms'),
      },
      producerIdExpirationMs: values.int('producer.id.expiration.ms'),
      producerIdExpirationCheckIntervalMs: values.int('producer.id.expiration.check.interval.ms'),
      logDirMoveBytesPerSecond: values.int('replica.alter.log.dirs.io.max.bytes.per.second'),
      clusterId,
      metricsListener: parseMetricsListener(values.raw('metrics.listener')),
      metricsLagMaxPartitions: values.int('metrics.consumergroup.lag.max.partitions'),
      metricsProducerClients: {
        maxClients: values.int('metrics.producer.clients.max'),
        idleMs: values.int('metrics.producer.clients.idle.ms'),
      },
      staticSettings,
      cluster: clusterMember(values, interBrokerListener, sasl),
      authorizer: authorizerConfig(values),
    },
    unknownKeys,
  };
}

function shareGroupConfig(values: Values): ShareGroupConfig {
  const config: ShareGroupConfig = {
    maxSize: values.int('group.share.max.size'),
    sessionTimeoutMs: values.int('group.share.session.timeout.ms'),
    minSessionTimeoutMs: values.int('group.share.min.session.timeout.ms'),
    maxSessionTimeoutMs: values.int('group.share.max.session.timeout.ms'),
    heartbeatIntervalMs: values.int('group.share.heartbeat.interval.ms'),
    minHeartbeatIntervalMs: values.int('group.share.min.heartbeat.interval.ms'),
    maxHeartbeatIntervalMs: values.int('group.share.max.heartbeat.interval.ms'),
    assignors: splitList(values.raw('group.share.assignors') ?? ''),
    assignmentIntervalMs: values.int('group.share.assignment.interval.ms'),
    minAssignmentIntervalMs: values.int('group.share.min.assignment.interval.ms'),
    maxAssignmentIntervalMs: values.int('group.share.max.assignment.interval.ms'),
    initializeRetryIntervalMs: values.int('group.share.initialize.retry.interval.ms'),
    recordLockDurationMs: values.int('group.share.record.lock.duration.ms'),
    minRecordLockDurationMs: values.int('group.share.min.record.lock.duration.ms'),
    maxRecordLockDurationMs: values.int('group.share.max.record.lock.duration.ms'),
    deliveryCountLimit: values.int('group.share.delivery.count.limit'),
    minDeliveryCountLimit: values.int('group.share.min.delivery.count.limit'),
    maxDeliveryCountLimit: values.int('group.share.max.delivery.count.limit'),
    partitionMaxRecordLocks: values.int('group.share.partition.max.record.locks'),
    minPartitionMaxRecordLocks: values.int('group.share.min.partition.max.record.locks'),
    maxPartitionMaxRecordLocks: values.int('group.share.max.partition.max.record.locks'),
    maxShareSessions: values.int('group.share.max.share.sessions'),
  };
  const problem = shareGroupConfigProblem(config);
  if (problem !== null) throw new ConfigError(problem.key, problem.message);
  return config;
}

function listenersOf(merged: ReadonlyMap<string, string>, settings: ReadonlyMap<string, string>): ReturnType<typeof buildListeners> {
  try {
    return buildListeners(merged, settings);
  } catch (err) {
    if (err instanceof ListenerConfigError) throw new ConfigError(err.key, err.message);
    if (err instanceof TlsConfigError) throw new ConfigError(err.key, err.reason);
    throw err;
  }
}

/** Kafka's broker dials the others with the inter-broker listener's ssl.* keys. */
function interBrokerClientTls(listener: ListenerConfig): ClientTls {
  try {
    return clientTls(listener.ssl);
  } catch (err) {
    if (err instanceof TlsConfigError) throw new ConfigError(err.key, `inter-broker listener ${listener.name}: ${err.reason}`);
    throw err;
  }
}

/** Kafka's `host:count,host:count`. */
export function perIpOverrides(value: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const item of splitList(value)) {
    const m = /^(.+):(\d+)$/.exec(item);
    if (m === null) throw new ConfigError('max.connections.per.ip.overrides', `'${item}' is not host:count`);
    out.set(m[1]!, Number(m[2]));
  }
  return out;
}

function authorizerConfig(values: Values): AuthorizerConfig | null {
  const className = values.raw('authorizer.class.name') ?? '';
  if (className === '') return null;
  if (!AUTHORIZER_CLASS_NAMES.includes(className)) {
    throw new ConfigError(
      'authorizer.class.name',
      `'${className}' is not an authorizer this broker has (${AUTHORIZER_CLASS_NAMES.join(', ')})`,
    );
  }
  return {
    superUsers: parseSuperUsers(values.raw('super.users') ?? ''),
    allowEveryoneIfNoAclFound: values.bool('allow.everyone.if.no.acl.found'),
  };
}

function saslConfig(values: Values, listenerSaslSettings: ReadonlyMap<string, string>, listeners: readonly ListenerConfig[]): SaslConfig {
  const saslListeners = listeners
    .filter((l) => l.securityProtocol === 'SASL_PLAINTEXT' || l.securityProtocol === 'SASL_SSL')
    .map((l) => l.name);
  return asConfigError(() => buildSaslConfig((key) => listenerSaslSettings.get(key) ?? values.raw(key), saslListeners));
}

function asConfigError<T>(build: () => T): T {
  try {
    return build();
  } catch (err) {
    if (err instanceof SaslConfigError) throw new ConfigError(err.key, err.reason);
    throw err;
  }
}

/** How this broker logs in to the others when the inter-broker listener is a SASL one. */
function interBrokerSasl(values: Values, sasl: SaslConfig, interBroker: ListenerConfig): SaslClientCredentials | null {
  if (!sasl.listeners.has(interBroker.name)) return null;
  return asConfigError(() => interBrokerCredentials(sasl, interBroker.name, values.raw('sasl.mechanism.inter.broker.protocol')!));
}

function clusterMember(values: Values, interBroker: ListenerConfig, sasl: SaslConfig): ClusterMemberConfig | null {
  const connect = values.raw('zookeeper.connect');
  if (connect === undefined || connect === '') return null;
  if (!/^[^/,\s]+(,[^/,\s]+)*(\/[^\s]*)?$/.test(connect))
    throw new ConfigError('zookeeper.connect', `'${connect}' is not host:port[,host:port][/chroot]`);
  const sessionTimeoutMs = values.int('zookeeper.session.timeout.ms');
  return {
    zookeeperConnect: connect,
    interBrokerListenerName: interBroker.name,
    interBrokerTls: interBroker.tls === null ? null : interBrokerClientTls(interBroker),
    interBrokerSasl: interBrokerSasl(values, sasl, interBroker),
    zookeeperSessionTimeoutMs: sessionTimeoutMs,
    zookeeperConnectionTimeoutMs:
      values.raw('zookeeper.connection.timeout.ms') === undefined ? sessionTimeoutMs : values.int('zookeeper.connection.timeout.ms'),
    rack: values.raw('broker.rack') ?? null,
    numReplicaFetchers: values.int('num.replica.fetchers'),
    replicaFetchMaxBytes: values.int('replica.fetch.max.bytes'),
    replicaFetchResponseMaxBytes: values.int('replica.fetch.response.max.bytes'),
    replicaFetchWaitMaxMs: values.int('replica.fetch.wait.max.ms'),
    replicaFetchMinBytes: values.int('replica.fetch.min.bytes'),
    replicaFetchBackoffMs: values.int('replica.fetch.backoff.ms'),
    replicaSocketTimeoutMs: values.int('replica.socket.timeout.ms'),
    controllerSocketTimeoutMs: values.int('controller.socket.timeout.ms'),
    controlledShutdownEnable: values.bool('controlled.shutdown.enable'),
    controlledShutdownMaxRetries: values.int('controlled.shutdown.max.retries'),
    controlledShutdownRetryBackoffMs: values.int('controlled.shutdown.retry.backoff.ms'),
    offsetsTopicReplicationFactor: values.int('offsets.topic.replication.factor'),
    transactionStateLogReplicationFactor: values.int('transaction.state.log.replication.factor'),
    shareStateTopicReplicationFactor: values.int('share.coordinator.state.topic.replication.factor'),
    autoLeaderRebalanceEnable: values.bool('auto.leader.rebalance.enable'),
    leaderImbalanceCheckIntervalMs: values.int('leader.imbalance.check.interval.seconds') * 1000,
    leaderImbalancePerBrokerPercentage: values.int('leader.imbalance.per.broker.percentage'),
  };
}
