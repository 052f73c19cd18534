/**
 * The group, transaction and share coordinators, built on first use: their ~60 modules and
 * record codecs are ~5 MiB and ~0.1 s of CPU that a broker serving only produce and fetch never
 * needs (docs/journal/performance.md). They load with the first request of an API that uses them
 * (the handler registry waits for them, so handlers read them synchronously), with a
 * transactional produce's verification, or when this broker leads a partition of their internal
 * topics — at start-up too, so groups and transactions come back after a restart.
 *
 * Built together, as one unit: the transaction coordinator asks the group coordinator where a
 * group's offsets live, and the group coordinator's share groups write through the share
 * coordinator.
 */
import { offsetOf } from '@sluice/protocol/common/offsets.js';
import type { ClusterMember } from './cluster-member.js';
import type { BrokerConfig } from './config.js';
import { internalTopicPartitions, offsetsTopicSpec, shareGroupStateTopicSpec, transactionStateTopicSpec } from './internal-topics.js';
import { featureLevel, TRANSACTION_VERSION } from '../metadata/features.js';
import type { ConfigResolver } from '../metadata/config/config-resolver.js';
import type { BrokerRegistration, MetadataSource } from '../metadata/metadata-image.js';
import type { TopicAdmin } from '../metadata/admin/topic-admin.js';
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import type { Logger } from '../common/logger.js';
import type { GroupCoordinatorService } from '../coordinator/group/group-coordinator-service.js';
import type { ProducerIdManager } from '../coordinator/producer-id-manager.js';
import type { ShareCoordinatorService } from '../coordinator/share/share-coordinator-service.js';
import type {
  SharePartitionKey,
  SharePersister,
  ShareStateSnapshot,
  ShareStateSummary,
  ShareStateWrite,
} from '../coordinator/share/share-state-persister.js';
import type { TransactionCoordinatorService } from '../coordinator/transaction/transaction-coordinator-service.js';
import type { ClusterContext } from '../handlers/cluster-context.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { CONSUMER_OFFSETS_TOPIC, SHARE_GROUP_STATE_TOPIC, TRANSACTION_STATE_TOPIC } from '@sluice/protocol/internal-topics.js';
import type { PartitionService } from '../partitions/partition-service.js';
import type { ProducePurgatory } from '../partitions/produce-purgatory.js';

export interface Coordinators {
  readonly groups: GroupCoordinatorService;
  readonly transactions: TransactionCoordinatorService;
  readonly shareCoordinator: ShareCoordinatorService;
  /** Share-partition state wherever its share coordinator runs, here or on another broker. */
  readonly sharePersister: SharePersister;
}

/** What the coordinators are built from. */
export interface CoordinatorDeps {
  readonly config: BrokerConfig;
  readonly node: BrokerRegistration;
  readonly metadata: MetadataSource;
  readonly admin: TopicAdmin;
  readonly partitions: PartitionService;
  readonly producePurgatory: ProducePurgatory;
  readonly configs: ConfigResolver;
  readonly producerIds: ProducerIdManager;
  readonly member: ClusterMember | null;
  /** The handlers' context, where the transaction coordinator writes its markers. */
  readonly cluster: () => ClusterContext;
  readonly logger: (component: string) => Logger;
}

/** The internal topics whose partitions the coordinators load from. */
export const COORDINATOR_TOPICS: ReadonlySet<string> = new Set([CONSUMER_OFFSETS_TOPIC, TRANSACTION_STATE_TOPIC, SHARE_GROUP_STATE_TOPIC]);

/** Builds the three services and takes over the internal-topic partitions this broker leads. */
export async function buildCoordinators(deps: CoordinatorDeps): Promise<Coordinators> {
  const [
    { GroupCoordinatorService },
    { TransactionCoordinatorService },
    { ShareCoordinatorService },
    { ShareStatePersister },
    { InternalTopicLog },
    { writeMarkers },
  ] = await Promise.all([
    import('../coordinator/group/group-coordinator-service.js'),
    import('../coordinator/transaction/transaction-coordinator-service.js'),
    import('../coordinator/share/share-coordinator-service.js'),
    import('../coordinator/share/share-state-routing.js'),
    import('../coordinator/runtime/coordinator-log.js'),
    import('../handlers/txn-marker-writes.js'),
  ]);
  const { config, node, metadata, admin, partitions, producePurgatory, configs, member, logger } = deps;
  const shareState = (p: number): { leader: number } | undefined => metadata.image.partition(SHARE_GROUP_STATE_TOPIC, p);
  const shareCoordinator = new ShareCoordinatorService({
    log: new InternalTopicLog(
      shareGroupStateTopicSpec(config.shareCoordinator),
      internalTopicPartitions(
        SHARE_GROUP_STATE_TOPIC,
        admin,
        partitions,
        producePurgatory,
        config.cluster?.shareStateTopicReplicationFactor ?? 1,
        config.shareCoordinator.writeTimeoutMs,
      ),
    ),
    numPartitions: config.shareCoordinator.numPartitions,
    config: {
      snapshotUpdateRecordsPerSnapshot: config.shareCoordinator.snapshotUpdateRecordsPerSnapshot,
      coldPartitionSnapshotIntervalMs: config.shareCoordinator.coldPartitionSnapshotIntervalMs,
    },
    leads: (p) => shareState(p)?.leader === node.nodeId,
    partitionCount: (topicId) => metadata.image.topicById(topicId)?.partitionCount,
    logger: logger('share-coordinator'),
    deleteRecords: async (partition, offset) =>
      (await partitions.deleteRecords({ topic: SHARE_GROUP_STATE_TOPIC, partition }, offsetOf(offset))).errorCode,
    topicIds: () => metadata.image.topics().map((t) => t.topicId),
    pruneIntervalMs: config.shareCoordinator.pruneIntervalMs,
  });
  const sharePersister = new ShareStatePersister({
    nodeId: node.nodeId,
    local: shareCoordinator,
    leaderOf: (p) => shareState(p)?.leader ?? null,
    // The member's peers exist once it is prepared; nothing is persisted before it joins.
    peers: member === null ? null : { at: (leader) => member.shareStatePeers().at(leader) },
  });
  const groups = new GroupCoordinatorService({
    log: new InternalTopicLog(
      offsetsTopicSpec(config.offsetsTopicNumPartitions),
      internalTopicPartitions(
        CONSUMER_OFFSETS_TOPIC,
        admin,
        partitions,
        producePurgatory,
        config.cluster?.offsetsTopicReplicationFactor ?? 1,
      ),
    ),
    numPartitions: config.offsetsTopicNumPartitions,
    config: { ...config.groupCoordinator, groupOverrides: (groupId) => configs.groupConfig(groupId) },
    leads: (p) => metadata.image.partition(CONSUMER_OFFSETS_TOPIC, p)?.leader === node.nodeId,
    logger: logger('groups'),
    sharePersister,
  });
  const transactionState = (p: number): { leader: number; leaderEpoch: number } | undefined =>
    metadata.image.partition(TRANSACTION_STATE_TOPIC, p);
  const transactions = new TransactionCoordinatorService({
    log: new InternalTopicLog(
      transactionStateTopicSpec(config.transactionStateLog),
      internalTopicPartitions(
        TRANSACTION_STATE_TOPIC,
        admin,
        partitions,
        producePurgatory,
        config.cluster?.transactionStateLogReplicationFactor ?? 1,
      ),
    ),
    numPartitions: config.transactionStateLog.numPartitions,
    config: { ...config.transactionCoordinator, transactionVersionLevel: () => featureLevel(metadata.image.features, TRANSACTION_VERSION) },
    leads: (p) => transactionState(p)?.leader === node.nodeId,
    coordinatorEpoch: (p) => transactionState(p)?.leaderEpoch ?? -1,
    producerIds: deps.producerIds,
    markers: { write: (marker) => writeMarkers(deps.cluster(), marker) },
    offsetsPartitionFor: (groupId) => groups.partitionOf(groupId),
    logger: logger('transactions'),
  });
  // Like a broker taking over its partitions: what this broker leads loads now.
  shareCoordinator.onLeadership();
  shareCoordinator.startPeriodicJobs();
  groups.onLeadership();
  transactions.onLeadership();
  return { groups, transactions, shareCoordinator, sharePersister };
}

function closeAll(c: Coordinators): void {
  c.groups.close();
  c.transactions.close();
  c.shareCoordinator.close();
}

export class LazyCoordinators {
  private loading: Promise<Coordinators> | null = null;
  private current: Coordinators | null = null;
  private closed = false;
  /** Routes share state to the coordinators, loading them first: the share partitions hold it from start-up. */
  readonly sharePersister: SharePersister;

  constructor(
    private readonly build: () => Promise<Coordinators>,
    private readonly log: Logger,
  ) {
    this.sharePersister = new DeferredSharePersister(() => this.load());
  }

  /** The coordinators once built; null before. */
  get loaded(): Coordinators | null {
    return this.current;
  }

  /** Builds the coordinators once; a failed build is tried again by the next call. */
  load(): Promise<Coordinators> {
    this.loading ??= this.build().then(
      (built) => {
        this.current = built;
        // A stop during the build: the coordinators stop as soon as they exist.
        if (this.closed) closeAll(built);
        return built;
      },
      (err: unknown) => {
        this.loading = null;
        throw err;
      },
    );
    return this.loading;
  }

  /** The coordinators, for the handlers that the registry loads after them. */
  get(): Coordinators {
    if (this.current === null) throw new KafkaError(ErrorCode.COORDINATOR_NOT_AVAILABLE, 'the coordinators have not been loaded');
    return this.current;
  }

  /**
   * This broker now leads partitions of `topics`: the coordinators concerned take them over,
   * and coordinators not built yet are built (which takes over every partition led here).
   */
  onLeadershipChange(topics: ReadonlySet<string>): void {
    const c = this.current;
    if (c === null) {
      if ([...topics].some((t) => COORDINATOR_TOPICS.has(t))) {
        this.load().catch((err: unknown) =>
          this.log.error('loading the coordinators failed', { error: (err as Error).stack ?? String(err) }),
        );
      }
      return;
    }
    if (topics.has(CONSUMER_OFFSETS_TOPIC)) c.groups.onLeadership();
    if (topics.has(TRANSACTION_STATE_TOPIC)) c.transactions.onLeadership();
    if (topics.has(SHARE_GROUP_STATE_TOPIC)) c.shareCoordinator.onLeadership();
  }

  close(): void {
    this.closed = true;
    if (this.current !== null) closeAll(this.current);
  }
}

class DeferredSharePersister implements SharePersister {
  constructor(private readonly load: () => Promise<Coordinators>) {}

  async initialize(key: SharePartitionKey, stateEpoch: number, startOffset: bigint): Promise<void> {
    await (await this.load()).sharePersister.initialize(key, stateEpoch, startOffset);
  }

  async read(key: SharePartitionKey, leaderEpoch: number): Promise<ShareStateSnapshot> {
    return (await this.load()).sharePersister.read(key, leaderEpoch);
  }

  async write(key: SharePartitionKey, state: ShareStateWrite): Promise<void> {
    await (await this.load()).sharePersister.write(key, state);
  }

  async delete(key: SharePartitionKey): Promise<void> {
    await (await this.load()).sharePersister.delete(key);
  }

  async readSummary(key: SharePartitionKey, leaderEpoch: number): Promise<ShareStateSummary> {
    return (await this.load()).sharePersister.readSummary(key, leaderEpoch);
  }
}
