/**
 * Every API handler the broker registers, by API key, with the versions it serves and
 * advertises. The registry derives ApiVersions from this list. A handler's module (and with it
 * its codecs and whatever serves it) loads on its first request: most brokers never see most
 * APIs, and loading them all was most of a broker's start-up time and memory. The ranges here
 * are the handler's own (`defineHandler`); test/unit/handlers/registry.test.ts loads every
 * module and checks that they agree. The group, transaction and share coordinators load with
 * the first handler that reads them (`coordinated`).
 */
import { API_TABLE } from '@sluice/protocol/messages/api-table.js';
import type { HandlerEntry, RegisteredApi } from './handler.js';

/** Where a handler serves or advertises from a version other than its codec's lowest (Produce, SaslHandshake). */
interface RangeOverrides {
  readonly servedFrom?: number;
  readonly advertisedFrom?: number;
}

function lazy(apiKey: number, load: () => Promise<RegisteredApi>, overrides: RangeOverrides = {}): HandlerEntry {
  const api = API_TABLE.find((a) => a.apiKey === apiKey);
  if (api === undefined) throw new Error(`API ${apiKey} has no generated definition`);
  const versions = { lo: overrides.servedFrom ?? api.requestVersions.lo, hi: api.requestVersions.hi };
  return { apiKey, name: api.name, versions, advertisedVersions: { lo: overrides.advertisedFrom ?? versions.lo, hi: versions.hi }, load };
}

/** A handler that reads the group, transaction or share coordinators: they load with its module. */
function coordinated(entry: HandlerEntry): HandlerEntry {
  return { ...entry, usesCoordinators: true };
}

export const HANDLERS: readonly HandlerEntry[] = [
  lazy(0, async () => (await import('./00-produce.js')).produceHandler, { advertisedFrom: 0 }),
  lazy(1, async () => (await import('./01-fetch.js')).fetchHandler),
  lazy(2, async () => (await import('./02-list-offsets.js')).listOffsetsHandler),
  lazy(3, async () => (await import('./03-metadata.js')).metadataHandler),
  coordinated(lazy(8, async () => (await import('./08-offset-commit.js')).offsetCommitHandler)),
  coordinated(lazy(9, async () => (await import('./09-offset-fetch.js')).offsetFetchHandler)),
  coordinated(lazy(10, async () => (await import('./10-find-coordinator.js')).findCoordinatorHandler)),
  coordinated(lazy(11, async () => (await import('./11-join-group.js')).joinGroupHandler)),
  coordinated(lazy(12, async () => (await import('./12-heartbeat.js')).heartbeatHandler)),
  coordinated(lazy(13, async () => (await import('./13-leave-group.js')).leaveGroupHandler)),
  coordinated(lazy(14, async () => (await import('./14-sync-group.js')).syncGroupHandler)),
  coordinated(lazy(15, async () => (await import('./15-describe-groups.js')).describeGroupsHandler)),
  coordinated(lazy(16, async () => (await import('./16-list-groups.js')).listGroupsHandler)),
  lazy(17, async () => (await import('./17-sasl-handshake.js')).saslHandshakeHandler, { servedFrom: 1, advertisedFrom: 0 }),
  lazy(18, async () => (await import('./18-api-versions.js')).apiVersionsHandler),
  lazy(19, async () => (await import('./19-create-topics.js')).createTopicsHandler),
  lazy(20, async () => (await import('./20-delete-topics.js')).deleteTopicsHandler),
  lazy(21, async () => (await import('./21-delete-records.js')).deleteRecordsHandler),
  lazy(22, async () => (await import('./22-init-producer-id.js')).initProducerIdHandler),
  lazy(23, async () => (await import('./23-offset-for-leader-epoch.js')).offsetForLeaderEpochHandler),
  coordinated(lazy(24, async () => (await import('./24-add-partitions-to-txn.js')).addPartitionsToTxnHandler)),
  coordinated(lazy(25, async () => (await import('./25-add-offsets-to-txn.js')).addOffsetsToTxnHandler)),
  coordinated(lazy(26, async () => (await import('./26-end-txn.js')).endTxnHandler)),
  lazy(27, async () => (await import('./27-write-txn-markers.js')).writeTxnMarkersHandler),
  coordinated(lazy(28, async () => (await import('./28-txn-offset-commit.js')).txnOffsetCommitHandler)),
  lazy(29, async () => (await import('./29-describe-acls.js')).describeAclsHandler),
  lazy(30, async () => (await import('./30-create-acls.js')).createAclsHandler),
  lazy(31, async () => (await import('./31-delete-acls.js')).deleteAclsHandler),
  lazy(32, async () => (await import('./32-describe-configs.js')).describeConfigsHandler),
  lazy(33, async () => (await import('./33-alter-configs.js')).alterConfigsHandler),
  lazy(34, async () => (await import('./34-alter-replica-log-dirs.js')).alterReplicaLogDirsHandler),
  lazy(35, async () => (await import('./35-describe-log-dirs.js')).describeLogDirsHandler),
  lazy(36, async () => (await import('./36-sasl-authenticate.js')).saslAuthenticateHandler),
  lazy(37, async () => (await import('./37-create-partitions.js')).createPartitionsHandler),
  coordinated(lazy(42, async () => (await import('./42-delete-groups.js')).deleteGroupsHandler)),
  lazy(43, async () => (await import('./43-elect-leaders.js')).electLeadersHandler),
  lazy(45, async () => (await import('./45-alter-partition-reassignments.js')).alterPartitionReassignmentsHandler),
  lazy(46, async () => (await import('./46-list-partition-reassignments.js')).listPartitionReassignmentsHandler),
  lazy(44, async () => (await import('./44-incremental-alter-configs.js')).incrementalAlterConfigsHandler),
  coordinated(lazy(47, async () => (await import('./47-offset-delete.js')).offsetDeleteHandler)),
  lazy(50, async () => (await import('./50-describe-user-scram-credentials.js')).describeUserScramCredentialsHandler),
  lazy(51, async () => (await import('./51-alter-user-scram-credentials.js')).alterUserScramCredentialsHandler),
  lazy(48, async () => (await import('./48-describe-client-quotas.js')).describeClientQuotasHandler),
  lazy(49, async () => (await import('./49-alter-client-quotas.js')).alterClientQuotasHandler),
  lazy(57, async () => (await import('./57-update-features.js')).updateFeaturesHandler),
  lazy(60, async () => (await import('./60-describe-cluster.js')).describeClusterHandler),
  lazy(61, async () => (await import('./61-describe-producers.js')).describeProducersHandler),
  coordinated(lazy(65, async () => (await import('./65-describe-transactions.js')).describeTransactionsHandler)),
  coordinated(lazy(66, async () => (await import('./66-list-transactions.js')).listTransactionsHandler)),
  coordinated(lazy(68, async () => (await import('./68-consumer-group-heartbeat.js')).consumerGroupHeartbeatHandler)),
  coordinated(lazy(69, async () => (await import('./69-consumer-group-describe.js')).consumerGroupDescribeHandler)),
  lazy(74, async () => (await import('./74-list-config-resources.js')).listConfigResourcesHandler),
  lazy(75, async () => (await import('./75-describe-topic-partitions.js')).describeTopicPartitionsHandler),
  coordinated(lazy(76, async () => (await import('./76-share-group-heartbeat.js')).shareGroupHeartbeatHandler)),
  coordinated(lazy(77, async () => (await import('./77-share-group-describe.js')).shareGroupDescribeHandler)),
  lazy(78, async () => (await import('./78-share-fetch.js')).shareFetchHandler),
  lazy(79, async () => (await import('./79-share-acknowledge.js')).shareAcknowledgeHandler),
  coordinated(lazy(90, async () => (await import('./90-describe-share-group-offsets.js')).describeShareGroupOffsetsHandler)),
  coordinated(lazy(91, async () => (await import('./91-alter-share-group-offsets.js')).alterShareGroupOffsetsHandler)),
  coordinated(lazy(92, async () => (await import('./92-delete-share-group-offsets.js')).deleteShareGroupOffsetsHandler)),
  coordinated(lazy(83, async () => (await import('./83-initialize-share-group-state.js')).initializeShareGroupStateHandler)),
  coordinated(lazy(84, async () => (await import('./84-read-share-group-state.js')).readShareGroupStateHandler)),
  coordinated(lazy(85, async () => (await import('./85-write-share-group-state.js')).writeShareGroupStateHandler)),
  coordinated(lazy(86, async () => (await import('./86-delete-share-group-state.js')).deleteShareGroupStateHandler)),
  coordinated(lazy(87, async () => (await import('./87-read-share-group-state-summary.js')).readShareGroupStateSummaryHandler)),
];

/** Kafka's ZooKeeper-era inter-broker APIs: registered (and advertised) only on cluster members. */
export const CLUSTER_HANDLERS: readonly HandlerEntry[] = [
  lazy(4, async () => (await import('./04-leader-and-isr.js')).leaderAndIsrHandler),
  lazy(5, async () => (await import('./05-stop-replica.js')).stopReplicaHandler),
  lazy(6, async () => (await import('./06-update-metadata.js')).updateMetadataHandler),
  lazy(7, async () => (await import('./07-controlled-shutdown.js')).controlledShutdownHandler),
  lazy(56, async () => (await import('./56-alter-partition.js')).alterPartitionHandler),
];
