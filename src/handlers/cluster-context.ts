/**
 * What the handlers use beyond the request: the cluster metadata, the topic admin (which reaches
 * partition owners only through `PartitionAdmin`), config resolution, and the routed data
 * operations. Handlers never see storage or sockets.
 */
import type { MetadataImage } from '../metadata/metadata-image.js';
import type { ClientEntityStore } from '../metadata/client-entity-store.js';
import type { ConfigResolver } from '../metadata/config/config-resolver.js';
import type { TopicAdmin } from '../metadata/admin/topic-admin.js';
import type { ClusterMembership } from '../metadata/replica-control.js';
import type { ProducerIdManager } from '../coordinator/producer-id-manager.js';
import type { FetchPurgatory } from '../partitions/fetch-purgatory.js';
import type { ProducePurgatory } from '../partitions/produce-purgatory.js';
import type { GroupCoordinatorService } from '../coordinator/group/group-coordinator-service.js';
import type { TransactionCoordinatorService } from '../coordinator/transaction/transaction-coordinator-service.js';
import type { ShareCoordinatorService } from '../coordinator/share/share-coordinator-service.js';
import type { SharePersister } from '../coordinator/share/share-state-persister.js';
import type { FetchSessionCache } from '../partitions/fetch-session-cache.js';
import type { PartitionData } from '../partitions/partition-data.js';
import type { KeyedQueue } from '../common/keyed-queue.js';
import type { Authorizer } from '../security/acl/index.js';
import type { AclAdmin } from '../metadata/admin/acl-admin.js';
import type { LogLevels } from '../common/log-levels.js';
import type { RequestContext } from './handler.js';
import type { ShareServices } from './share-services.js';

export interface ClusterContext {
  /** This broker's id (`node.id`). */
  readonly nodeId: number;
  /** The current metadata image, read afresh on every access (a change replaces it). */
  readonly metadata: MetadataImage;
  readonly admin: TopicAdmin;
  readonly configs: ConfigResolver;
  /** Users', client ids' and ips' configs: SCRAM credentials and quotas. */
  readonly clientEntities: ClientEntityStore;
  /** `auto.create.topics.enable`. */
  readonly autoCreateTopicsEnable: boolean;
  /** Appends, reads and offset lookups, routed to the partitions' owners. */
  readonly partitions: PartitionData;
  readonly fetchSessions: FetchSessionCache;
  /** Where long-poll fetches wait for appends. */
  readonly purgatory: FetchPurgatory;
  /** Where acks=all produces wait for their followers. */
  readonly producePurgatory: ProducePurgatory;
  readonly producerIds: ProducerIdManager;
  /**
   * Where a transactional producer's Produce requests are appended one at a time (keyed by
   * transactional id), as Kafka reads a connection's requests: one waiting for the coordinator to
   * verify its partitions must not let a later one overtake it.
   */
  readonly transactionalProduces: KeyedQueue;
  /**
   * Loads the coordinators below on first use; the registry awaits it before the first request
   * of an API marked `usesCoordinators`, other code before it reads them.
   */
  loadCoordinators(): Promise<void>;
  /** The classic group coordinators (one per `__consumer_offsets` partition); throws COORDINATOR_NOT_AVAILABLE before `loadCoordinators`. */
  readonly groups: GroupCoordinatorService;
  /** The transaction coordinators (one per `__transaction_state` partition this broker leads); as `groups`. */
  readonly transactions: TransactionCoordinatorService;
  /** The share coordinators (one per `__share_group_state` partition this broker leads): RPCs 83–87; as `groups`. */
  readonly shareCoordinator: ShareCoordinatorService;
  /** Share-partition state wherever its share coordinator runs, here or on another broker. */
  readonly sharePersister: SharePersister;
  /** Set on a member of a ZooKeeper-coordinated cluster: where the inter-broker requests go. */
  readonly membership: ClusterMembership | null;
  /** The cluster's ACLs, and CreateAcls/DeleteAcls carried out where they are stored. */
  readonly acls: AclAdmin;
  /** Set when `authorizer.class.name` is: decides each request on the ACLs (see `authorization.ts`); null allows everything. */
  readonly authorizer: Authorizer | null;
  /** Share partitions and share sessions (KIP-932), for ShareFetch and ShareAcknowledge; absent where share groups are not wired. */
  readonly shares?: ShareServices;
  /** This broker's logger levels: the BROKER_LOGGER config resource. */
  readonly brokerLoggers: LogLevels;
}

export function membershipOf(c: ClusterContext): ClusterMembership {
  if (c.membership === null)
    throw new Error('an inter-broker request reached a broker that is not a cluster member: its handler is registered only on members');
  return c.membership;
}

/** Kafka's "authorized operations not requested" marker. */
export const OPERATIONS_NOT_REQUESTED = -2147483648;
/**
 * With no authorizer every operation is allowed: these are the bit sets Kafka 4.4 answers for a
 * topic (READ, WRITE, CREATE, DELETE, ALTER, DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS) and for
 * the cluster (CREATE, ALTER, DESCRIBE, CLUSTER_ACTION, DESCRIBE_CONFIGS, ALTER_CONFIGS,
 * IDEMPOTENT_WRITE).
 */
export const ALL_TOPIC_OPERATIONS = 3576;
export const ALL_CLUSTER_OPERATIONS = 8096;

/** Kafka's config resource types. */
export const ResourceType = { TOPIC: 2, BROKER: 4, BROKER_LOGGER: 8, CLIENT_METRICS: 16, GROUP: 32 } as const;

export function clusterOf(ctx: RequestContext): ClusterContext {
  if (ctx.cluster === undefined) throw new Error('handler invoked without a cluster context: the dispatcher was built without one');
  return ctx.cluster;
}
