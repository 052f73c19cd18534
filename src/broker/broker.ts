/**
 * The composition root: builds the configuration, formats the log dirs, starts the partition
 * workers, loads the cluster metadata, and wires the handlers to the listener. Usable
 * in-process by test suites: `const broker = await Broker.start({ port: 0 })`,
 * `broker.bootstrap`, `await broker.stop()`. Everything a broker counts or logs is its own (its
 * `BrokerMetrics`, loggers tagged with its node id), so several can share one process given
 * different log dirs.
 *
 * Start-up order matters for crash safety: the clean-shutdown markers are read before any
 * worker opens a log (they decide whether logs are recovered) and removed only once every
 * worker has loaded, so a crash from then on is never mistaken for a clean stop.
 */
import { KeyedQueue } from '../common/keyed-queue.js';
import { Logger } from '../common/logger.js';
import { BrokerMetrics } from '../common/metrics/broker-metrics.js';
import { ClientEntityStore } from '../metadata/client-entity-store.js';
import { ConfigResolver } from '../metadata/config/config-resolver.js';
import { LocalController } from '../controller/local/local-controller.js';
import { LocalMetadataWriter } from '../controller/local/local-metadata-writer.js';
import { MetadataStore } from '../metadata/metadata-store.js';
import { TopicAdmin } from '../metadata/admin/topic-admin.js';
import { AclAdmin } from '../metadata/admin/acl-admin.js';
import { Authorizer } from '../security/acl/index.js';
import { liveConnectionLimits } from './live-connection-limits.js';
import { LogLevels } from '../common/log-levels.js';
import { LocalProducerIdBlocks, ProducerIdManager } from '../coordinator/producer-id-manager.js';
import type { SharePersister } from '../coordinator/share/share-state-persister.js';
import { FrameBufferPool } from '@sluice/protocol/frame-buffer-pool.js';
import type { ClusterContext } from '../handlers/cluster-context.js';
import { CLUSTER_HANDLERS, HANDLERS } from '../handlers/index.js';
import { HandlerRegistry } from '../handlers/registry.js';
import { RequestDispatcher } from '../handlers/request-dispatcher.js';
import { ServingGate } from '../handlers/serving-gate.js';
import { RateLimitedLog } from '../common/rate-limited-log.js';
import { ConnectionLimits } from '../network/connection-limits.js';
import { Listener } from '../network/listener.js';
import { ClientQuotas } from '../quota/client-quotas.js';
import { FetchPurgatory } from '../partitions/fetch-purgatory.js';
import { FetchSessionCache } from '../partitions/fetch-session-cache.js';
import { purgatoryEvents, type PartitionEvents } from '../partitions/partition-events.js';
import { followShareLeadership, wakeShareFetches } from '../handlers/share-services.js';
import { SharePartitionManager } from '../coordinator/share/partition/share-partition-manager.js';
import { ShareSessionCache } from '../coordinator/share/partition/share-session-cache.js';
import { eventLoopTimers } from '../coordinator/share/partition/share-partition.js';
import { fileBatches } from '../coordinator/share/partition/log-batches.js';
import { sharePartitionConfigSource } from './share-partition-settings.js';
import { shareDeadLetters } from './share-dead-letters.js';
import { shareDeadLetterQueuesEnabled } from '../metadata/features.js';
import { PartitionService } from '../partitions/partition-service.js';
import { ProducePurgatory } from '../partitions/produce-purgatory.js';
import { hasCleanShutdownMarker, removeCleanShutdownMarker } from '../storage/log/clean-shutdown-marker.js';
import { partitionsInLogDir } from '../storage/log/partition-dirs.js';
import type { PartitionWorkerOptions } from '../partitions/partition-protocol.js';
import { PartitionWorkerHost } from '../worker-pool/partition-worker-host.js';
// Installs the addon's CRC32C, copy, record scan and codecs as the protocol's in this thread (the
// partition workers and cleaners get them through storage, which loads the addon's wrappers).
import '../native/index.js';
import { buildConfig, type BrokerConfig } from './config.js';
import { buildCoordinators, COORDINATOR_TOPICS, LazyCoordinators } from './coordinators.js';
import { loadOrFormatLogDirs } from './log-dir-format.js';
import type { ClusterMember } from './cluster-member.js';
import { connectClusterMember, createSaslAuthenticator, startMetricsEndpoint } from './lazy-modules.js';
import { LOG_DIR_CHECK_INTERVAL_MS, LogDirFailureHandler } from '../replication/log-dir-failure-handler.js';
import { randomUuid } from '@sluice/protocol/common/uuid.js';
import type { BrokerRegistration, ListenerEndpoint, MetadataSource } from '../metadata/metadata-image.js';
import type { MetricsServer } from './metrics-server.js';
import { uncompressedRecordsSize } from './uncompressed-size.js';
import type { TopicPartition } from '@sluice/protocol/common/topic-partition.js';

export interface BrokerStartOptions {
  readonly host?: string;
  /** 0 picks a free port. */
  readonly port?: number;
  /** Kafka configuration keys, e.g. `{ 'log.dirs': '/tmp/sluice' }`. */
  readonly config?: Readonly<Record<string, string>>;
  /**
   * The broker cannot go on (a cluster member whose every log dir failed): `sluice start` exits
   * with status 1, as Kafka halts. Embedded, the default stops the broker.
   */
  readonly onFatal?: (reason: string, broker: Broker) => void;
}

/** Kafka's `log.flush.offset.checkpoint.interval.ms` default. */
const CHECKPOINT_INTERVAL_MS = 60_000;
/** Kafka's `max.incremental.fetch.session.cache.slots` default. */
const FETCH_SESSION_SLOTS = 1000;
/** Flushes, delayed deletions and retention run at least this often in each worker. */
const MAX_MAINTENANCE_INTERVAL_MS = 1000;
/** WARN lines a second about what clients send (bad frames, failed handshakes, refused connections). */
const CLIENT_WARNINGS_PER_SECOND = 10;

/** A listener as it runs: its configuration and the address it bound. */
interface RunningListener {
  readonly name: string;
  readonly listener: Listener;
  readonly host: string;
  readonly port: number;
}

function hostPort(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

export class Broker {
  private constructor(
    readonly config: BrokerConfig,
    private readonly member: ClusterMember | null,
    private readonly access: PartitionAccess,
    private readonly serving: Serving,
    private readonly parts: ClusterParts,
    private readonly checkpointTimer: NodeJS.Timeout,
  ) {}

  /** The `/metrics` endpoint, when `metrics.listener` is set. */
  get metrics(): MetricsServer | null {
    return this.parts.metricsServer;
  }

  private get listeners(): readonly RunningListener[] {
    return this.serving.listeners;
  }

  /** Share-partition state wherever its share coordinator runs (`ClusterContext.sharePersister`). */
  get sharePersister(): SharePersister {
    return this.parts.coordinators.sharePersister;
  }

  /** The bound address of the first listener. */
  get host(): string {
    return this.listeners[0]!.host;
  }

  get port(): number {
    return this.listeners[0]!.port;
  }

  /** host:port of the first listener. */
  get bootstrap(): string {
    return hostPort(this.host, this.port);
  }

  /** Every listener's name and bound host:port, in the order of `listeners`. */
  get boundListeners(): ReadonlyArray<{ readonly name: string; readonly address: string }> {
    return this.listeners.map((l) => ({ name: l.name, address: hostPort(l.host, l.port) }));
  }

  /** The bound host:port of listener `name` (case-insensitive, as Kafka's listener names). */
  bootstrapOf(name: string): string {
    const found = this.listeners.find((l) => l.name === name.toUpperCase());
    if (found === undefined) throw new Error(`no listener ${name}; listeners are ${this.listeners.map((l) => l.name).join(', ')}`);
    return hostPort(found.host, found.port);
  }

  /**
   * Starts a broker in stages, each a function below that returns what it built: the settings,
   * the storage (the cluster member's connection, the log dirs and the partition workers), the
   * partition access, the listeners, the cluster context, the metrics endpoint. A stage that fails
   * closes what the stages before it opened.
   */
  static async start(options: BrokerStartOptions = {}): Promise<Broker> {
    const setup = setUp(options);
    const storage = await startStorage(setup);
    const cluster = new ClusterContextSlot();
    const access = buildPartitionAccess(setup, storage, cluster);
    const serving = await startServing(setup, storage, access, cluster);
    const fatal = new FatalStop(setup.log, options.onFatal);
    const parts = await buildCluster(setup, storage, access, serving, cluster, fatal).catch(async (err: unknown) => {
      serving.gate.fail(err);
      await Promise.all(serving.listeners.map((l) => l.listener.close()));
      await storage.member?.close();
      await access.partitions.close();
      throw err;
    });
    const { log } = setup;
    const checkpointTimer = setInterval(() => {
      access.partitions.checkpoint().catch((err: unknown) => log.error('writing checkpoint files failed', { error: String(err) }));
    }, CHECKPOINT_INTERVAL_MS);
    checkpointTimer.unref();
    const broker = new Broker(setup.config, storage.member, access, serving, parts, checkpointTimer);
    fatal.brokerStarted(broker);
    return broker;
  }

  /** Clean shutdown: stop accepting, end waiting fetches, flush and close every log, write the markers. */
  async stop(): Promise<void> {
    const { partitions, purgatory, producePurgatory } = this.access;
    const { coordinators, sharePartitions, localLogDirFailures, metricsServer } = this.parts;
    clearInterval(this.checkpointTimer);
    localLogDirFailures?.close();
    // Leaderships move away while this broker still serves, so clients lose nothing acknowledged.
    await this.member?.controlledShutdown();
    const closing = Promise.all(this.listeners.map((l) => l.listener.close()));
    // Long-poll fetches answer now with what they have, and parked JoinGroup/SyncGroup requests
    // learn NOT_COORDINATOR, so every connection can drain.
    purgatory.wakeAll('shutdown');
    producePurgatory.close();
    coordinators.close();
    await closing;
    await sharePartitions.close();
    // Scrapes ask the workers, so the endpoint goes before them.
    await metricsServer?.close();
    await this.member?.close();
    await partitions.close();
  }
}

/** The configuration and the loggers every stage uses. */
interface Setup {
  readonly config: BrokerConfig;
  readonly logLevels: LogLevels;
  readonly logger: (component: string) => Logger;
  readonly log: Logger;
}

function setUp(options: BrokerStartOptions): Setup {
  const settings = new Map(Object.entries(options.config ?? {}));
  if (options.host !== undefined || options.port !== undefined) {
    const protocol = /^(\w+):\/\//.exec(settings.get('listeners') ?? '')?.[1] ?? 'PLAINTEXT';
    settings.set('listeners', `${protocol}://${options.host ?? '127.0.0.1'}:${options.port ?? 9092}`);
  }
  const { config, unknownKeys } = buildConfig(settings);
  const logLevels = new LogLevels();
  const logger = (component: string): Logger => new Logger(component, { nodeId: config.nodeId }, logLevels);
  const log = logger('broker');
  for (const key of unknownKeys) log.warn('ignoring unknown configuration key', { key });
  for (const warning of config.sasl.warnings) log.warn(warning);
  return { config, logLevels, logger, log };
}

/** The cluster member (null for a single broker), the cluster id the log dirs carry, and the partition workers over them. */
interface Storage {
  readonly member: ClusterMember | null;
  readonly clusterId: string;
  readonly host: PartitionWorkerHost;
}

async function startStorage({ config, logger, log }: Setup): Promise<Storage> {
  // A cluster member's cluster id is ZooKeeper's; log dirs of another cluster are refused.
  const member =
    config.cluster === null ? null : await connectClusterMember(config.cluster, config.clusterId ?? randomUuid(), logger('cluster'));
  const clusterId = loadOrFormatLogDirs(config.logDirs, config.nodeId, member?.clusterId ?? config.clusterId);
  const cleanShutdownDirs = config.logDirs.filter(hasCleanShutdownMarker);
  const workerOptions: PartitionWorkerOptions = {
    logDirs: config.logDirs,
    cleanShutdownDirs,
    nodeId: config.nodeId,
    clusterId,
    maintenanceIntervalMs: Math.min(MAX_MAINTENANCE_INTERVAL_MS, config.logRetentionCheckIntervalMs),
    cleanerThreads: config.logCleanerThreads,
    replicaLagTimeMaxMs: config.replicaLagTimeMaxMs,
    producerIdExpirationMs: config.producerIdExpirationMs,
    producerIdExpirationCheckIntervalMs: config.producerIdExpirationCheckIntervalMs,
    logDirMoveBytesPerSecond: config.logDirMoveBytesPerSecond,
  };
  const host = await PartitionWorkerHost.start({
    opModule: new URL('../partitions/partition-ops.js', import.meta.url),
    workers: config.numPartitionWorkers,
    moduleOptions: workerOptions,
    onWorkerLost: (err) => log.error('partition worker lost: its partitions answer KAFKA_STORAGE_ERROR', { error: err.message }),
    startOwnersOf: partitionsOnDisk(config.logDirs, log),
  });
  for (const dir of cleanShutdownDirs) removeCleanShutdownMarker(dir);
  return { member, clusterId, host };
}

/**
 * The cluster context, once it exists. Connections are accepted while the logs open, so what
 * serves requests is built before it; the dispatcher's gate holds their requests until it is set.
 */
class ClusterContextSlot {
  private value: ClusterContext | null = null;

  get current(): ClusterContext | null {
    return this.value;
  }

  require(): ClusterContext {
    if (this.value === null) throw new Error('request served before the cluster metadata was loaded');
    return this.value;
  }

  set(cluster: ClusterContext): void {
    this.value = cluster;
  }
}

/** The partitions as the handlers reach them, and the purgatories their replies wake. */
interface PartitionAccess {
  readonly purgatory: FetchPurgatory;
  readonly producePurgatory: ProducePurgatory;
  readonly partitions: PartitionService;
}

function buildPartitionAccess({ config, logger }: Setup, { member, host }: Storage, cluster: ClusterContextSlot): PartitionAccess {
  const purgatory = new FetchPurgatory();
  const producePurgatory = new ProducePurgatory();
  // An expansion a follower's fetch brought goes to the member's ISR sender (a single broker has no followers).
  const purgatoryEventsOnly = purgatoryEvents(purgatory, producePurgatory, (topic, partition, proposal) =>
    member?.isrProposed(topic, partition, proposal),
  );
  const shareLeadership = followShareLeadership(() => cluster.current);
  const partitionEvents: PartitionEvents = {
    ...purgatoryEventsOnly,
    stateApplied(topic, partition) {
      purgatoryEventsOnly.stateApplied(topic, partition);
      shareLeadership(topic, partition);
    },
  };
  const partitions = new PartitionService(host, logger('partitions'), partitionEvents, config.logDirs, purgatory);
  return { purgatory, producePurgatory, partitions };
}

/** The request path: the broker's instruments, the dispatcher behind its gate, the bound listeners. */
interface Serving {
  readonly metrics: BrokerMetrics;
  readonly gate: ServingGate;
  readonly listeners: readonly RunningListener[];
}

/** Binds every listener; a listener that cannot bind closes the others, the partitions and the member. */
async function startServing(
  { config, logger }: Setup,
  { member }: Storage,
  { partitions }: PartitionAccess,
  cluster: ClusterContextSlot,
): Promise<Serving> {
  const registry = new HandlerRegistry(member === null ? HANDLERS : [...HANDLERS, ...CLUSTER_HANDLERS], () =>
    cluster.require().loadCoordinators(),
  );
  const metrics = new BrokerMetrics({ ...config.metricsProducerClients, uncompressedSize: uncompressedRecordsSize });
  const quotas = new ClientQuotas(() => cluster.require().metadata, config.quotaWindow, metrics);
  const authenticator =
    config.sasl.listeners.size === 0
      ? undefined
      : await createSaslAuthenticator(config.sasl, () => cluster.require().metadata, metrics, logger('security'));
  // Connections are accepted while the logs open (the advertised port may be the one the OS
  // picked); their requests wait at the gate until the cluster context exists.
  const gate = new ServingGate();
  const dispatcher = new RequestDispatcher(
    registry,
    logger('handlers'),
    metrics,
    () => cluster.current ?? undefined,
    quotas,
    authenticator,
    gate,
  );
  const networkLog = logger('network');
  const clientWarnings = new RateLimitedLog(networkLog, CLIENT_WARNINGS_PER_SECOND);
  const limits = new ConnectionLimits(liveConnectionLimits(config, () => cluster.current?.configs ?? null));
  const framePool = new FrameBufferPool();
  const listeners: RunningListener[] = [];
  try {
    for (const l of config.listeners) {
      const listener = new Listener(
        dispatcher,
        {
          listenerName: l.name,
          securityProtocol: l.securityProtocol,
          maxFrameBytes: config.socketRequestMaxBytes,
          maxInFlightRequests: config.maxInFlightRequests,
          idleTimeoutMs: config.connectionsMaxIdleMs,
          metrics,
          clientWarnings,
          framePool,
          tls: l.tls,
          limits,
        },
        networkLog,
      );
      const bound = await listener.listen(l.host, l.port);
      listeners.push({ name: l.name, listener, host: bound.host, port: bound.port });
    }
  } catch (err) {
    gate.fail(err);
    await Promise.all(listeners.map((l) => l.listener.close()));
    await partitions.close();
    await member?.close();
    throw err;
  }
  return { metrics, gate, listeners };
}

/**
 * Stops the broker when it cannot go on (a failed log dir left none, a member's fatal error). The
 * log dir checks start before the broker object exists: a fatal error then waits for it.
 */
class FatalStop {
  private broker: Broker | null = null;
  private pending: string | null = null;

  constructor(
    private readonly log: Logger,
    private readonly onFatal: BrokerStartOptions['onFatal'],
  ) {}

  readonly fatal = (reason: string): void => {
    this.log.error('the broker cannot go on; stopping', { reason });
    if (this.broker === null) this.pending = reason;
    else this.halt(this.broker, reason);
  };

  brokerStarted(broker: Broker): void {
    this.broker = broker;
    if (this.pending !== null) this.halt(broker, this.pending);
  }

  private halt(broker: Broker, reason: string): void {
    if (this.onFatal !== undefined) this.onFatal(reason, broker);
    else
      void broker.stop().catch((err: unknown) => this.log.error('stopping after a fatal error failed', { error: (err as Error).message }));
  }
}

/** What the cluster context stage built that the broker keeps and stops. */
interface ClusterParts {
  readonly coordinators: LazyCoordinators;
  readonly sharePartitions: SharePartitionManager;
  /** A single broker's answer to a failed log dir (a member's is the member's): its partitions go offline in the metadata. */
  readonly localLogDirFailures: LogDirFailureHandler | null;
  readonly metricsServer: MetricsServer | null;
}

/**
 * The metadata (the single broker's own controller, or the member's cache), administration,
 * coordinators and share partitions, put together as the cluster context; then the gate opens,
 * the coordinators of a restarted broker load, the member registers and the metrics endpoint
 * starts. On failure it closes the log dir checks it started; the caller closes the rest.
 */
async function buildCluster(
  { config, logLevels, logger, log }: Setup,
  { member, clusterId, host }: Storage,
  { purgatory, producePurgatory, partitions }: PartitionAccess,
  { metrics, gate, listeners }: Serving,
  cluster: ClusterContextSlot,
  { fatal }: FatalStop,
): Promise<ClusterParts> {
  let localLogDirFailures: LogDirFailureHandler | null = null;
  try {
    const endpoints: ListenerEndpoint[] = config.listeners.map((l, i) => ({
      listenerName: l.name,
      securityProtocol: l.securityProtocol,
      host: l.advertisedHost,
      port: l.advertisedPort === 0 ? listeners[i]!.port : l.advertisedPort,
    }));
    const interBroker = endpoints.find((e) => e.listenerName === config.interBrokerListener.name)!;
    const node: BrokerRegistration = { nodeId: config.nodeId, host: interBroker.host, port: interBroker.port, rack: null, endpoints };
    const local = member === null ? new LocalController(clusterId, node, new MetadataStore(config.logDirs[0]!)) : null;
    const metadata: MetadataSource = local ?? member!.cache;
    const configs = new ConfigResolver(config.staticSettings, metadata);
    const writer = local !== null ? new LocalMetadataWriter(local, partitions, configs) : member!.writer(node.nodeId);
    const admin = new TopicAdmin(writer, configs, partitions, {
      numPartitions: config.numPartitions,
      replicationFactor: config.defaultReplicationFactor,
      deleteTopicEnable: config.deleteTopicEnable,
    });
    // A single broker opens what its own metadata lists; a member opens what LeaderAndIsr names.
    if (local !== null) {
      await admin.openAll();
      localLogDirFailures = new LogDirFailureHandler({
        logs: partitions,
        markOffline: async (offline) => local.markReplicasOffline(offline),
        notifyController: async () => undefined,
        onAllFailed: (dirs) => fatal(`all log dirs in ${dirs.join(', ')} have failed`),
        checkIntervalMs: LOG_DIR_CHECK_INTERVAL_MS,
        log: logger('log-dirs'),
      });
      localLogDirFailures.start();
    }
    const producerIds = new ProducerIdManager(member?.producerIdBlocks(node.nodeId) ?? new LocalProducerIdBlocks(config.logDirs[0]!));
    const coordinatorDeps = {
      config,
      node,
      metadata,
      admin,
      partitions,
      producePurgatory,
      configs,
      producerIds,
      member,
      cluster: () => cluster.require(),
      logger,
    };
    const coordinators = new LazyCoordinators(() => buildCoordinators(coordinatorDeps), log);
    member?.prepare(
      node,
      config.deleteTopicEnable,
      config.replicaLagTimeMaxMs,
      partitions,
      configs,
      {
        onLeadershipChange: (topics) => coordinators.onLeadershipChange(topics),
        onUncleanElection: () => metrics.uncleanLeaderElection(),
        onFatal: fatal,
      },
      logger,
    );
    const sharePartitions = new SharePartitionManager(
      coordinators.sharePersister,
      sharePartitionConfigSource(
        config.shareGroup,
        (groupId) => configs.groupConfig(groupId),
        () => shareDeadLetterQueuesEnabled(metadata.image.features),
      ),
      eventLoopTimers,
      wakeShareFetches(() => cluster.require()),
      shareDeadLetters({
        nodeId: node.nodeId,
        admin,
        configs,
        partitions,
        commits: producePurgatory,
        metrics,
        log: logger('share-dead-letters'),
        peers: () => member?.deadLetterPeers() ?? null,
      }),
    );
    cluster.set({
      nodeId: node.nodeId,
      get metadata() {
        return metadata.image;
      },
      admin,
      configs,
      clientEntities: new ClientEntityStore(writer),
      autoCreateTopicsEnable: config.autoCreateTopicsEnable,
      partitions,
      fetchSessions: new FetchSessionCache({ maxSessions: FETCH_SESSION_SLOTS }),
      purgatory,
      producePurgatory,
      producerIds,
      transactionalProduces: new KeyedQueue(),
      get groups() {
        return coordinators.get().groups;
      },
      get transactions() {
        return coordinators.get().transactions;
      },
      get shareCoordinator() {
        return coordinators.get().shareCoordinator;
      },
      sharePersister: coordinators.sharePersister,
      loadCoordinators: async () => {
        await coordinators.load();
      },
      shares: { partitions: sharePartitions, sessions: new ShareSessionCache(config.shareGroup.maxShareSessions), batches: fileBatches },
      membership: member?.membership() ?? null,
      acls: new AclAdmin(writer),
      authorizer: config.authorizer === null ? null : new Authorizer(config.authorizer, () => metadata.image.acls),
      brokerLoggers: logLevels,
    });
    gate.open();
    // Groups and transactions come back after a restart: their state loads now, not on first use.
    if (metadata.image.topics().some((t) => COORDINATOR_TOPICS.has(t.name))) await coordinators.load();
    // Registering invites the controller's requests, which need everything above.
    await member?.join();
    const metricsServer =
      config.metricsListener === null
        ? null
        : await startMetrics(
            config.metricsListener,
            config.metricsLagMaxPartitions,
            metrics,
            host,
            partitions,
            coordinators,
            logger('metrics'),
          );
    if (metricsServer !== null) log.info('metrics endpoint listening', { url: metricsServer.url });
    log.info('broker started', {
      clusterId,
      nodeId: node.nodeId,
      advertised: endpoints.map((e) => `${e.listenerName}://${hostPort(e.host, e.port)}`).join(','),
      topics: metadata.image.topics().length,
      workers: host.size,
      workersStarted: host.startedWorkers().length,
      zookeeper: config.cluster?.zookeeperConnect ?? null,
    });
    return { coordinators, sharePartitions, localLogDirFailures, metricsServer };
  } catch (err) {
    localLogDirFailures?.close();
    throw err;
  }
}

/** The `/metrics` endpoint over the broker's instruments and the workers' (`metrics.listener`). */
function startMetrics(
  at: { readonly host: string; readonly port: number },
  maxLagPartitions: number,
  metrics: BrokerMetrics,
  host: PartitionWorkerHost,
  partitions: PartitionService,
  coordinators: LazyCoordinators,
  log: Logger,
): Promise<MetricsServer> {
  return startMetricsEndpoint(
    at,
    {
      broker: metrics.registry,
      workers: (ends) => partitions.workerMetrics(ends),
      rings: () => host.ringOccupancy(),
      commands: () => host.commandCounts(),
      workersStarted: () => host.startedWorkers().length,
      committedOffsets: async () => (await coordinators.loaded?.groups.committedOffsets()) ?? [],
      clientProduce: () => metrics.clientProduce.snapshot(),
    },
    { maxLagPartitions, log },
  );
}

/**
 * The partitions with a directory in the log dirs: only their owners start with the broker.
 * Undefined when a log dir cannot be listed: every worker then starts, and finds out for itself
 * (a worker takes such a dir offline).
 */
function partitionsOnDisk(logDirs: readonly string[], log: Logger): TopicPartition[] | undefined {
  try {
    return logDirs.flatMap(partitionsInLogDir);
  } catch (err) {
    log.warn('listing the log dirs failed: every partition worker starts now', { error: String(err) });
    return undefined;
  }
}
