/**
 * The parts of a broker that exist only in a ZooKeeper-coordinated cluster, wired together: the
 * ZooKeeper session and Kafka's layout in it, the broker's registration (its epoch is the
 * znode's czxid), the controller every member runs for election, the metadata cache the
 * controller feeds, the replica manager and fetchers, the ISR change sender, config watching and
 * producer-id blocks. `connect` comes first (the cluster id decides how log dirs are formatted);
 * `join` last, once the listener serves requests, because registering invites the controller's.
 */
import type { Logger } from '../common/logger.js';
import { desanitizeEntityName, parseEntityPath } from '../metadata/client-entities.js';
import { AclSet } from '../security/acl/index.js';
import { ClusterMetadataCache } from '../metadata/cluster-metadata-cache.js';
import type { ConfigResolver } from '../metadata/config/config-resolver.js';
import type { DynamicScope, ListenerEndpoint } from '../metadata/metadata-image.js';
import type { ClusterMembership } from '../metadata/replica-control.js';
import type { ProducerIdBlock, ProducerIdBlockSource } from '../coordinator/producer-id-manager.js';
import { ZkController } from '../controller/zk/zk-controller.js';
import { BrokerConnections } from '../interbroker/broker-connections.js';
import { ControllerClient } from '../interbroker/controller-client.js';
import { TransactionPeerClient } from '../interbroker/transaction-peer-client.js';
import { DeadLetterPeerClient } from '../interbroker/dead-letter-peer-client.js';
import { PartitionEndClient } from '../interbroker/partition-end-client.js';
import { ShareStatePeerClient } from '../interbroker/share-state-peer-client.js';
import { IsrChangeSender } from '../replication/isr-change-sender.js';
import type { IsrChangeProposal } from '../replication/partition.js';
import { LOG_DIR_CHECK_INTERVAL_MS, LogDirFailureHandler } from '../replication/log-dir-failure-handler.js';
import { ReplicaFetcherManager } from '../replication/replica-fetcher-manager.js';
import type { ReplicaLogs } from '../replication/replica-logs.js';
import { ReplicaManager } from '../replication/replica-manager.js';
import { ZkMetadataWriter } from '../controller/zk/zk-metadata-writer.js';
import { ControlledShutdownRequest, ControlledShutdownResponse } from '@sluice/protocol/messages/index.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { DEFAULT_ENTITY, GROUP_CONFIG_ENTITY, KafkaZkClient, sessionIdHex, type ConfigEntityType } from '../zk/index.js';
import type { ClusterMemberConfig } from './config.js';
import { DEFAULT_FINALIZED_FEATURES, supportedRanges } from '../metadata/features.js';

/** How long an admin request waits for the controller's answer to reach this broker. */
const ADMIN_WAIT_MS = 30_000;
/** Kafka's producer-id block size. */
const PRODUCER_ID_BLOCK_SIZE = 1000;
/** Kafka's `request.timeout.ms` default, which its dead-letter Produce requests carry. */
const DEAD_LETTER_ACK_TIMEOUT_MS = 30_000;

/** What the member tells the broker around it. */
export interface MemberHooks {
  /** Leadership of some partitions changed (coordinators load or unload). */
  readonly onLeadershipChange: (topics: ReadonlySet<string>) => void;
  readonly onUncleanElection: () => void;
  /** The broker cannot go on (every log dir failed): Kafka halts it. Called once the member has left the cluster. */
  readonly onFatal: (reason: string) => void;
}

export interface MemberIdentity {
  readonly nodeId: number;
  /** The inter-broker listener's endpoint. */
  readonly host: string;
  readonly port: number;
  /** Every advertised listener, as registered in ZooKeeper. */
  readonly endpoints: readonly ListenerEndpoint[];
}

export class ClusterMember {
  readonly cache: ClusterMetadataCache;
  private brokerEpoch = -1n;
  private controller: ZkController | null = null;
  private replicaManager: ReplicaManager | null = null;
  private fetchers: ReplicaFetcherManager | null = null;
  private isrSender: IsrChangeSender | null = null;
  private brokerConnections: BrokerConnections | null = null;
  private transactionPeers: TransactionPeerClient | null = null;
  private sharePeers: ShareStatePeerClient | null = null;
  private deadLetters: DeadLetterPeerClient | null = null;
  private partitionEnds: PartitionEndClient | null = null;
  private controllerClient: ControllerClient | null = null;
  private logDirFailures: LogDirFailureHandler | null = null;

  private closed = false;
  private renewing: Promise<void> | null = null;
  private configWatch: { close(): void } | null = null;
  private aclWatch: { close(): void } | null = null;
  private featureWatch: (() => void) | null = null;
  /** This broker as it registers, known from `prepare` on. */
  private identity: MemberIdentity | null = null;
  /** What config changes reconfigure, known from `prepare` on. */
  private constructor(
    private zk: KafkaZkClient,
    readonly clusterId: string,
    private readonly config: ClusterMemberConfig,
    private readonly log: Logger,
  ) {
    this.cache = new ClusterMetadataCache(clusterId);
  }

  /** Connects to ZooKeeper, creates Kafka's top-level paths and reads (or sets) the cluster id. */
  static async connect(config: ClusterMemberConfig, proposedClusterId: string, log: Logger): Promise<ClusterMember> {
    const zk = await KafkaZkClient.connect({
      connect: config.zookeeperConnect,
      sessionTimeoutMs: config.zookeeperSessionTimeoutMs,
      connectionTimeoutMs: config.zookeeperConnectionTimeoutMs,
    });
    try {
      await zk.createTopLevelPaths();
      const clusterId = await zk.getOrCreateClusterId(proposedClusterId);
      return new ClusterMember(zk, clusterId, config, log);
    } catch (err) {
      await zk.close();
      throw err;
    }
  }

  writer(nodeId: number): ZkMetadataWriter {
    return new ZkMetadataWriter(() => this.zk, this.cache, nodeId, ADMIN_WAIT_MS);
  }

  producerIdBlocks(nodeId: number): ProducerIdBlockSource {
    return {
      allocate: async (): Promise<ProducerIdBlock> => {
        const block = await this.zk.allocateProducerIdBlock(nodeId, PRODUCER_ID_BLOCK_SIZE);
        return { firstId: block.firstProducerId, size: BigInt(block.size) };
      },
    };
  }

  /** What the handlers reach; valid once `prepare` ran. */
  membership(): ClusterMembership {
    if (this.replicaManager === null || this.controller === null || this.transactionPeers === null || this.partitionEnds === null)
      throw new Error('cluster membership used before it was prepared');
    return {
      interBrokerListenerName: this.config.interBrokerListenerName,
      replicas: this.replicaManager,
      controller: this.controller,
      transactionPeers: this.transactionPeers,
      partitionEnds: this.partitionEnds,
    };
  }

  /** The share coordinators on the other brokers, over this member's connections; valid once `prepare` ran. */
  shareStatePeers(): ShareStatePeerClient {
    if (this.sharePeers === null) throw new Error('cluster membership used before it was prepared');
    return this.sharePeers;
  }

  /** The leaders of share groups' dead-letter partitions on the other brokers; valid once `prepare` ran. */
  deadLetterPeers(): DeadLetterPeerClient {
    if (this.deadLetters === null) throw new Error('cluster membership used before it was prepared');
    return this.deadLetters;
  }

  /** Builds the member's parts over the partition owners; nothing is sent or registered yet. */
  prepare(
    self: MemberIdentity,
    deleteTopicEnable: boolean,
    replicaLagTimeMaxMs: number,
    logs: ReplicaLogs,
    configs: ConfigResolver,
    hooks: MemberHooks,
    logger: (component: string) => Logger,
  ): void {
    this.identity = self;
    const brokerEpoch = (): bigint => this.brokerEpoch;
    this.controller = new ZkController(
      this.zk,
      {
        brokerId: self.nodeId,
        interBrokerListenerName: this.config.interBrokerListenerName,
        interBrokerTls: this.config.interBrokerTls,
        brokerSetting: (key) => configs.brokerValue(key),
        onUncleanElection: hooks.onUncleanElection,
        deleteTopicEnable,
        requestTimeoutMs: this.config.controllerSocketTimeoutMs,
        ...(this.config.interBrokerSasl === null ? {} : { sasl: this.config.interBrokerSasl }),
        autoLeaderRebalance: {
          enabled: this.config.autoLeaderRebalanceEnable,
          checkIntervalMs: this.config.leaderImbalanceCheckIntervalMs,
          perBrokerPercentage: this.config.leaderImbalancePerBrokerPercentage,
        },
      },
      logger('controller'),
    );
    this.fetchers = new ReplicaFetcherManager(
      logs,
      {
        brokerId: self.nodeId,
        brokerEpoch,
        maxWaitMs: this.config.replicaFetchWaitMaxMs,
        minBytes: this.config.replicaFetchMinBytes,
        maxBytes: this.config.replicaFetchResponseMaxBytes,
        partitionMaxBytes: this.config.replicaFetchMaxBytes,
        backoffMs: this.config.replicaFetchBackoffMs,
        requestTimeoutMs: this.config.replicaSocketTimeoutMs,
        tls: this.config.interBrokerTls,
        ...(this.config.interBrokerSasl === null ? {} : { sasl: this.config.interBrokerSasl }),
      },
      this.config.numReplicaFetchers,
      logger('replica-fetcher'),
    );
    this.replicaManager = new ReplicaManager({
      nodeId: self.nodeId,
      brokerEpoch,
      cache: this.cache,
      configs,
      logs,
      fetchers: this.fetchers,
      topicOverrides: async (topic) => new Map(Object.entries(await this.zk.getEntityConfig('topics', topic))),
      onLeadershipChange: hooks.onLeadershipChange,
      log: logger('replicas'),
    });
    const replicaManager = this.replicaManager;
    this.logDirFailures = new LogDirFailureHandler({
      logs,
      markOffline: (partitions) => replicaManager.markOffline(partitions),
      notifyController: () => this.zk.propagateLogDirEvent(self.nodeId),
      // Kafka halts the broker here. Leaving the cluster first lets the controller move every
      // leadership away at once instead of after the session timeout.
      onAllFailed: (dirs) => {
        const reason = `all log dirs in ${dirs.join(', ')} have failed`;
        void this.close()
          .catch((err: unknown) =>
            this.log.error('leaving the cluster after every log dir failed went wrong', { error: (err as Error).message }),
          )
          .finally(() => hooks.onFatal(reason));
      },
      checkIntervalMs: LOG_DIR_CHECK_INTERVAL_MS,
      log: logger('log-dirs'),
    });
    this.brokerConnections = new BrokerConnections(
      this.cache,
      `broker-${self.nodeId}`,
      this.config.controllerSocketTimeoutMs,
      this.config.interBrokerTls,
      this.config.interBrokerSasl ?? undefined,
    );
    this.controllerClient = new ControllerClient(this.cache, this.brokerConnections);
    this.transactionPeers = new TransactionPeerClient(this.brokerConnections, logger('transactions'));
    this.sharePeers = new ShareStatePeerClient(this.brokerConnections, logger('share-coordinator'));
    this.deadLetters = new DeadLetterPeerClient(this.brokerConnections, logger('share-dead-letters'), DEAD_LETTER_ACK_TIMEOUT_MS);
    this.partitionEnds = new PartitionEndClient(this.brokerConnections, logger('group-coordinator'));
    this.isrSender = new IsrChangeSender(
      self.nodeId,
      brokerEpoch,
      logs,
      this.controllerClient,
      this.cache,
      Math.max(1, Math.floor(replicaLagTimeMaxMs / 2)),
      logger('isr'),
    );
    this.watchConfigs(logs, configs);
  }

  private requireIdentity(): MemberIdentity {
    if (this.identity === null) throw new Error('the cluster member is used before it was prepared');
    return this.identity;
  }

  /** Registers the broker (refused if its id is taken) and starts competing for the controller. */
  async join(): Promise<void> {
    await this.followAcls();
    await this.followFeatures();
    await this.register();
    this.controller!.start();
    this.isrSender!.start();
    this.logDirFailures!.start();
  }

  private async register(): Promise<void> {
    const self = this.requireIdentity();
    // A restart right after a kill meets the dead process's registration: it goes within the
    // session timeout the server grants (the same for both sessions), so the broker waits that long.
    this.brokerEpoch = await this.zk.registerBroker(
      { id: self.nodeId, endpoints: self.endpoints, rack: this.config.rack, features: supportedRanges() },
      {
        maxWaitMs: this.zk.session.sessionTimeoutMs,
        onWait: (heldBy, maxWaitMs) =>
          this.log.warn('broker id is still registered by another ZooKeeper session, a previous run that died; waiting for it to expire', {
            brokerId: self.nodeId,
            session: sessionIdHex(heldBy),
            waitMs: maxWaitMs,
          }),
      },
    );
    this.log.info('registered in ZooKeeper', { brokerEpoch: this.brokerEpoch.toString() });
    this.zk.onSessionExpired(() => {
      this.renewing ??= this.renewSession().finally(() => (this.renewing = null));
    });
  }

  /**
   * Kafka's answer to an expired session: a new session, the same broker id registered again
   * (a new broker epoch, so the controller treats this broker as restarted and sends it its roles
   * afresh, fencing what it led), config watching and the controller election over the new
   * session. Retried until it works or the broker stops.
   */
  private async renewSession(): Promise<void> {
    this.log.warn('the ZooKeeper session expired; opening a new one and registering again');
    const expired = this.zk;
    this.configWatch?.close();
    while (!this.closed) {
      try {
        this.zk = await KafkaZkClient.connect({
          connect: this.config.zookeeperConnect,
          sessionTimeoutMs: this.config.zookeeperSessionTimeoutMs,
          connectionTimeoutMs: this.config.zookeeperConnectionTimeoutMs,
        });
        await this.register();
        break;
      } catch (err) {
        this.log.error('re-registering in ZooKeeper failed; retrying', { error: (err as Error).message });
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
    await expired.close().catch(() => undefined);
    if (this.closed) return;
    if (this.watchedLogs !== null) this.watchConfigs(this.watchedLogs.logs, this.watchedLogs.configs);
    await this.followAcls().catch((err: unknown) => this.log.error('reloading the ACLs failed', { error: (err as Error).message }));
    await this.followFeatures().catch((err: unknown) =>
      this.log.error('reading the finalized features failed', { error: (err as Error).message }),
    );
    this.controller?.replaceSession(this.zk);
  }

  private watchedLogs: { logs: ReplicaLogs; configs: ConfigResolver } | null = null;

  /** An ISR change a follower's fetch made its leader propose (an expansion): sent to the controller now. */
  isrProposed(topic: string, partition: number, proposal: IsrChangeProposal): void {
    this.isrSender?.offer({ topic, partition, ...proposal });
  }

  private watchConfigs(logs: ReplicaLogs, configs: ConfigResolver): void {
    this.watchedLogs = { logs, configs };
    const zk = this.zk;
    void this.loadClientEntities(zk).catch((err: unknown) =>
      this.log.error('loading client entity configs failed', { error: (err as Error).message }),
    );
    void this.loadConfigEntities(zk, logs, configs).catch((err: unknown) =>
      this.log.error('loading broker and group configs failed', { error: (err as Error).message }),
    );
    this.configWatch = this.zk.watchConfigChanges((entityPath) => {
      void this.applyConfigChange(entityPath, logs, configs).catch((err: unknown) =>
        this.log.error('applying a config change failed', { entityPath, error: (err as Error).message }),
      );
    });
  }

  private async loadClientEntities(zk: KafkaZkClient): Promise<void> {
    for (const path of await zk.listClientEntityPaths()) await this.applyClientEntityChange(zk, path);
  }

  private async applyClientEntityChange(zk: KafkaZkClient, path: string): Promise<void> {
    const [type, ...name] = path.split('/');
    this.cache.setClientEntityConfigs(
      parseEntityPath(path),
      new Map(Object.entries(await zk.getEntityConfig(type as ConfigEntityType, name.join('/')))),
    );
  }

  /**
   * As Kafka's AclAuthorizer: every ACL loaded, then each change notification (those still
   * present replayed first, so none made during the load is missed) reloads its resource.
   */
  private async followAcls(): Promise<void> {
    this.aclWatch?.close();
    const zk = this.zk;
    this.cache.setAcls(AclSet.of(await zk.getAllAcls()));
    this.aclWatch = zk.watchAclChanges((pattern) => {
      zk.getResourceAcls(pattern).then(
        ({ entries }) => this.cache.setResourceAcls(pattern, entries),
        (err: unknown) => this.log.error('reloading ACLs after a change failed', { resource: pattern.name, error: (err as Error).message }),
      );
    });
  }

  /**
   * The finalized features, as Kafka 3.9 brokers follow `/feature`: created with the defaults by
   * the first broker of a new cluster (Kafka's controller did that), then read after every change.
   */
  private async followFeatures(): Promise<void> {
    this.featureWatch?.();
    const zk = this.zk;
    await zk.createFeatures(DEFAULT_FINALIZED_FEATURES.levels);
    this.featureWatch = zk.watchFeatures((features) => {
      if (features !== null) this.cache.setFeatures({ levels: features.levels, epoch: BigInt(features.zkVersion) });
    });
  }

  private async applyConfigChange(entityPath: string, logs: ReplicaLogs, configs: ConfigResolver): Promise<void> {
    const [type, name] = entityPath.split('/', 2) as [string, string];
    if (type === 'users' || type === 'clients' || type === 'ips') {
      await this.applyClientEntityChange(this.zk, entityPath);
      return;
    }
    if (type === 'topics') {
      const overrides = new Map(Object.entries(await this.zk.getEntityConfig('topics', name)));
      this.cache.setTopicConfigs(name, overrides);
      this.controller?.topicConfigChanged(name, overrides);
      const topic = this.cache.image.topic(name);
      if (topic !== undefined)
        await logs.updateTopicConfig({ name, topicId: topic.topicId }, topic.partitionCount, configs.effectiveTopicConfig(topic));
    } else if (type === 'brokers') {
      await this.applyBrokerConfigChange(this.zk, name, logs, configs);
    } else if (type === GROUP_CONFIG_ENTITY) {
      await this.applyGroupConfigChange(this.zk, name);
    }
  }

  /** The dynamic broker configs the open logs were last reconfigured with, per scope. */
  private readonly appliedBrokerConfigs: Record<DynamicScope, ReadonlyMap<string, string>> = { clusterDefault: new Map(), node: new Map() };

  /**
   * A dynamic broker config entity (`<default>` or this broker's id) as ZooKeeper holds it. Topic
   * defaults follow the broker's `log.*` keys, so when the entity differs from what the logs were
   * last configured with, every topic is reconfigured live, as on a single broker. (The cache may
   * show the change already: this broker's own AlterConfigs puts it there for read-your-writes.)
   */
  private async applyBrokerConfigChange(zk: KafkaZkClient, name: string, logs: ReplicaLogs, configs: ConfigResolver): Promise<void> {
    const scope: DynamicScope | null = name === DEFAULT_ENTITY ? 'clusterDefault' : name === String(this.identity?.nodeId) ? 'node' : null;
    if (scope === null) return;
    const values = new Map(Object.entries(await zk.getEntityConfig('brokers', name)));
    this.cache.setDynamicConfigs(scope, values);
    const applied = this.appliedBrokerConfigs[scope];
    if (applied.size === values.size && [...values].every(([k, v]) => applied.get(k) === v)) return;
    this.appliedBrokerConfigs[scope] = values;
    for (const t of this.cache.image.topics())
      await logs.updateTopicConfig({ name: t.name, topicId: t.topicId }, t.partitionCount, configs.effectiveTopicConfig(t));
  }

  /** The broker and group config entities, read at start-up: their change notifications may have expired. */
  private async loadConfigEntities(zk: KafkaZkClient, logs: ReplicaLogs, configs: ConfigResolver): Promise<void> {
    await this.applyBrokerConfigChange(zk, DEFAULT_ENTITY, logs, configs);
    await this.applyBrokerConfigChange(zk, String(this.requireIdentity().nodeId), logs, configs);
    for (const node of await zk.listConfiguredGroups()) await this.applyGroupConfigChange(zk, node);
  }

  /** A group's config entity; its node name is the group id sanitized (`ZkMetadataWriter.setGroupConfigs`). */
  private async applyGroupConfigChange(zk: KafkaZkClient, node: string): Promise<void> {
    this.cache.setGroupConfigs(desanitizeEntityName(node), new Map(Object.entries(await zk.getEntityConfig(GROUP_CONFIG_ENTITY, node))));
  }

  /**
   * Controlled shutdown (`controlled.shutdown.enable`): asks the controller to move this broker's
   * leaderships away, retrying up to `controlled.shutdown.max.retries`, before the logs close.
   */
  async controlledShutdown(): Promise<boolean> {
    if (!this.config.controlledShutdownEnable || this.controllerClient === null) return false;
    for (let attempt = 1; attempt <= this.config.controlledShutdownMaxRetries; attempt++) {
      try {
        const connection = await this.controllerClient.connect();
        const response = await connection.request(ControlledShutdownRequest, ControlledShutdownResponse, () => ({
          brokerId: this.requireIdentity().nodeId,
          brokerEpoch: this.brokerEpoch,
        }));
        if (response.errorCode === ErrorCode.NONE && response.remainingPartitions.length === 0) {
          this.log.info('controlled shutdown succeeded');
          return true;
        }
        this.log.warn('controlled shutdown incomplete', {
          attempt,
          errorCode: response.errorCode,
          remaining: response.remainingPartitions.length,
        });
      } catch (err) {
        this.log.warn('controlled shutdown attempt failed', { attempt, error: (err as Error).message });
        this.controllerClient.close();
      }
      await new Promise((r) => setTimeout(r, this.config.controlledShutdownRetryBackoffMs));
    }
    return false;
  }

  /** Stops fetching and controlling, then closes the session (the registration goes with it). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.logDirFailures?.close();
    this.configWatch?.close();
    this.aclWatch?.close();
    this.featureWatch?.();
    this.isrSender?.close();
    this.fetchers?.close();
    this.controller?.close();
    this.brokerConnections?.close();
    await this.zk.close();
  }
}
