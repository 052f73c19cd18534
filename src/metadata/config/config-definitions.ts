/**
 * Kafka's configuration keys served by this broker: their types, defaults, bounds and how they
 * relate. Broker keys come from `server.properties` (and, for the dynamic ones, from
 * AlterConfigs); topic keys are per-topic overrides whose defaults come from broker keys, Kafka's
 * "synonyms" (`retention.ms` ← `log.retention.ms` ← `log.retention.minutes` ← `log.retention.hours`).
 * Values stay strings, as on the wire; `validateValue` applies Kafka's type, range and enum
 * rules and phrases failures as Kafka does.
 */
import { availableParallelism } from 'node:os';

export type ConfigType = 'boolean' | 'string' | 'int' | 'short' | 'long' | 'double' | 'list' | 'class' | 'password';

/** DescribeConfigs `config_type` (KIP-569). */
export const CONFIG_TYPE_CODE: Readonly<Record<ConfigType, number>> = {
  boolean: 1,
  string: 2,
  int: 3,
  short: 4,
  long: 5,
  double: 6,
  list: 7,
  class: 8,
  password: 9,
};

/** DescribeConfigs `config_source`. */
export const ConfigSource = {
  DYNAMIC_TOPIC_CONFIG: 1,
  DYNAMIC_BROKER_CONFIG: 2,
  DYNAMIC_DEFAULT_BROKER_CONFIG: 3,
  STATIC_BROKER_CONFIG: 4,
  DEFAULT_CONFIG: 5,
  DYNAMIC_BROKER_LOGGER_CONFIG: 6,
  GROUP_CONFIG: 8,
} as const;

export interface ConfigDefinition {
  readonly name: string;
  readonly type: ConfigType;
  /** Kafka's default as DescribeConfigs renders it; null when Kafka has none. */
  readonly defaultValue: string | null;
  readonly doc: string;
  readonly min?: number;
  readonly max?: number;
  /** Allowed values (for lists: allowed elements). */
  readonly oneOf?: readonly string[];
}

export interface BrokerConfigDefinition extends ConfigDefinition {
  /** Whether AlterConfigs may change it at run time (Kafka's dynamic broker configs); otherwise read-only. */
  readonly dynamic: boolean;
}

export interface BrokerSynonym {
  readonly key: string;
  /** Multiplier from the broker key's unit to the topic key's (hours → ms). */
  readonly scale: number;
}

export interface TopicConfigDefinition extends ConfigDefinition {
  /** Broker keys that set this topic config's default, in Kafka's order of precedence. */
  readonly synonyms: readonly BrokerSynonym[];
}

const LONG_MAX = '9223372036854775807';
const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;
const CLEANUP_POLICIES = ['compact', 'delete'];
const SECURITY_PROTOCOLS = ['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'];
const DEFAULT_SECURITY_PROTOCOL_MAP = SECURITY_PROTOCOLS.map((p) => `${p}:${p}`).join(',');
const COMPRESSION_TYPES = ['uncompressed', 'zstd', 'lz4', 'snappy', 'gzip', 'producer'];
const TIMESTAMP_TYPES = ['CreateTime', 'LogAppendTime'];
/** Kafka 4.x refuses segments under 1 MiB (KIP-1030). */
const MIN_SEGMENT_BYTES = 1_048_576;

function broker(
  name: string,
  type: ConfigType,
  defaultValue: string | null,
  dynamic: boolean,
  doc: string,
  bounds: Pick<ConfigDefinition, 'min' | 'max' | 'oneOf'> = {},
): BrokerConfigDefinition {
  return { name, type, defaultValue, dynamic, doc, ...bounds };
}

export const BROKER_CONFIGS: readonly BrokerConfigDefinition[] = [
  broker(
    'listeners',
    'list',
    'PLAINTEXT://127.0.0.1:9092',
    true,
    'Where the broker accepts clients: NAME://host:port, comma-separated (port 0 picks a free port).',
  ),
  broker(
    'advertised.listeners',
    'list',
    null,
    true,
    'NAME://host:port given to clients in Metadata, per listener; a listener without one advertises its own address (never 0.0.0.0).',
  ),
  broker(
    'listener.security.protocol.map',
    'list',
    DEFAULT_SECURITY_PROTOCOL_MAP,
    true,
    'Listener name to security protocol (PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL).',
  ),
  broker(
    'security.inter.broker.protocol',
    'string',
    'PLAINTEXT',
    false,
    'Security protocol of the inter-broker listener when inter.broker.listener.name is not set.',
    { oneOf: SECURITY_PROTOCOLS },
  ),
  broker(
    'max.connections',
    'int',
    '2147483647',
    true,
    'Most connections the broker accepts at once; a new one over the limit is closed at once.',
    { min: 0 },
  ),
  broker(
    'max.connections.per.ip',
    'int',
    '2147483647',
    true,
    'Most connections from one IP address; a new one over the limit is closed at once.',
    { min: 0 },
  ),
  broker(
    'max.connections.per.ip.overrides',
    'string',
    '',
    true,
    'Per-IP limits overriding max.connections.per.ip: ip:count,ip:count (host names are not resolved).',
  ),
  broker(
    'ssl.keystore.type',
    'string',
    'JKS',
    true,
    'PEM or PKCS12 (JKS is refused: convert it with keytool -importkeystore -deststoretype PKCS12).',
  ),
  broker('ssl.keystore.location', 'string', null, true, 'The keystore file: PKCS12, or PEM holding the private key and certificate chain.'),
  broker('ssl.keystore.password', 'password', null, true, 'Password of a PKCS12 keystore file.'),
  broker(
    'ssl.key.password',
    'password',
    null,
    true,
    'Password of the private key (an encrypted PEM key, or the key in a PKCS12 keystore).',
  ),
  broker('ssl.keystore.key', 'password', null, true, 'PEM private key inline (ssl.keystore.type=PEM).'),
  broker('ssl.keystore.certificate.chain', 'password', null, true, 'PEM certificate chain inline (ssl.keystore.type=PEM).'),
  broker(
    'ssl.truststore.type',
    'string',
    'JKS',
    true,
    'PEM or PKCS12 (JKS is refused: convert it with keytool -importkeystore -deststoretype PKCS12).',
  ),
  broker('ssl.truststore.location', 'string', null, true, 'The truststore file: PEM certificates or PKCS12.'),
  broker('ssl.truststore.password', 'password', null, true, 'Password of a PKCS12 truststore file.'),
  broker('ssl.truststore.certificates', 'password', null, true, 'Trusted PEM certificates inline (ssl.truststore.type=PEM).'),
  broker(
    'ssl.client.auth',
    'string',
    'none',
    true,
    'Whether clients of an SSL listener must (required), may (requested) or do not (none) present a certificate.',
    { oneOf: ['required', 'requested', 'none'] },
  ),
  broker('ssl.enabled.protocols', 'list', 'TLSv1.2,TLSv1.3', true, 'TLS versions accepted.', { oneOf: ['TLSv1.2', 'TLSv1.3'] }),
  broker(
    'ssl.protocol',
    'string',
    'TLSv1.3',
    false,
    'Accepted for compatibility: as in Kafka, ssl.enabled.protocols decides the TLS versions offered.',
    { oneOf: ['TLS', 'TLSv1.2', 'TLSv1.3'] },
  ),
  broker('ssl.cipher.suites', 'list', '', true, 'Cipher suites allowed, by IANA (Java) or OpenSSL name; empty allows the defaults.'),
  broker(
    'ssl.principal.mapping.rules',
    'string',
    'DEFAULT',
    true,
    "Rules mapping a client certificate's distinguished name to a principal name: RULE:pattern/replacement/[LU], ..., DEFAULT.",
  ),
  broker(
    'ssl.endpoint.identification.algorithm',
    'string',
    'https',
    true,
    'https checks the host name of the broker a broker connects to against its certificate; empty does not.',
  ),
  broker('node.id', 'int', '0', false, 'The id of this broker in the cluster.', { min: 0 }),
  broker('broker.id', 'int', '0', false, 'Older name of node.id; must agree with it when both are set.', { min: 0 }),
  broker('log.dirs', 'list', null, false, 'Directories holding partition logs; overrides log.dir.'),
  broker('log.dir', 'list', './data', false, 'The directory holding partition logs when log.dirs is not set.'),
  broker('num.partitions', 'int', '1', false, 'Partitions of a topic created without a partition count.', { min: 1 }),
  broker('default.replication.factor', 'int', '1', false, 'Replication factor of a topic created without one.', { min: 1 }),
  broker(
    'auto.create.topics.enable',
    'boolean',
    'true',
    false,
    'Create a topic when a client asks Metadata for an unknown one and allows it.',
  ),
  broker('delete.topic.enable', 'boolean', 'true', false, 'Whether DeleteTopics may delete topics.'),
  broker(
    'authorizer.class.name',
    'string',
    '',
    false,
    "The authorizer: kafka.security.authorizer.AclAuthorizer or org.apache.kafka.metadata.authorizer.StandardAuthorizer (ACLs, Kafka's semantics); empty authorizes every request.",
  ),
  broker(
    'super.users',
    'string',
    null,
    false,
    'Principals allowed everything when an authorizer is configured, separated by semicolons (User:admin;User:broker).',
  ),
  broker(
    'allow.everyone.if.no.acl.found',
    'boolean',
    'false',
    false,
    'With an authorizer, whether a resource no ACL applies to is open to everyone.',
  ),
  broker('log.segment.bytes', 'int', '1073741824', true, 'Maximum size of a log segment file.', { min: MIN_SEGMENT_BYTES }),
  broker('log.roll.ms', 'long', null, true, 'Maximum age of the active segment before it rolls; overrides log.roll.hours.', { min: 1 }),
  broker('log.roll.hours', 'int', '168', false, 'Maximum age in hours of the active segment before it rolls.', { min: 1 }),
  broker(
    'log.roll.jitter.ms',
    'long',
    null,
    true,
    'Maximum random jitter subtracted from the roll time; overrides log.roll.jitter.hours.',
    { min: 0 },
  ),
  broker('log.roll.jitter.hours', 'int', '0', false, 'Maximum random jitter in hours subtracted from the roll time.', { min: 0 }),
  broker('log.retention.ms', 'long', null, true, 'How long a log keeps a segment; -1 keeps forever. Overrides minutes and hours.', {
    min: -1,
  }),
  broker('log.retention.minutes', 'int', null, false, 'How long a log keeps a segment, in minutes; overrides log.retention.hours.'),
  broker('log.retention.hours', 'int', '168', false, 'How long a log keeps a segment, in hours.'),
  broker('log.retention.bytes', 'long', '-1', true, 'Maximum size of a partition log before old segments are deleted; -1 is unbounded.'),
  broker('log.local.retention.bytes', 'long', '-2', true, 'Tiered storage: local bytes kept per partition; -2 means log.retention.bytes.', {
    min: -2,
  }),
  broker('log.local.retention.ms', 'long', '-2', true, 'Tiered storage: local time kept; -2 means the retention time.', { min: -2 }),
  broker('log.remote.copy.lag.bytes', 'long', '-1', true, 'Tiered storage: bytes the local log may hold before copying.', { min: -1 }),
  broker('log.remote.copy.lag.ms', 'long', '0', true, 'Tiered storage: time before a segment is copied.', { min: 0 }),
  broker('log.retention.check.interval.ms', 'long', '300000', false, 'How often retention is checked.', { min: 1 }),
  broker('log.index.interval.bytes', 'int', '4096', true, 'Bytes of log between two offset index entries.', { min: 0 }),
  broker('log.index.size.max.bytes', 'int', '10485760', true, 'Maximum size of an offset index file.', { min: 4 }),
  broker('log.flush.interval.messages', 'long', LONG_MAX, true, 'Messages appended to a log before it is fsynced.', { min: 1 }),
  broker('log.flush.interval.ms', 'long', null, true, 'Maximum time a message stays in memory before the log is fsynced.'),
  broker(
    'log.segment.delete.delay.ms',
    'long',
    '60000',
    true,
    'How long a deleted segment stays on disk (renamed .deleted) before removal.',
    { min: 0 },
  ),
  broker('log.cleanup.policy', 'list', 'delete', true, 'Default cleanup policy of topics: delete, compact or both.', {
    oneOf: CLEANUP_POLICIES,
  }),
  broker('log.cleaner.delete.retention.ms', 'long', '86400000', true, 'How long delete tombstones are kept in compacted topics.', {
    min: 0,
  }),
  broker('log.cleaner.min.compaction.lag.ms', 'long', '0', true, 'Minimum age of a message before it may be compacted.', { min: 0 }),
  broker('log.cleaner.max.compaction.lag.ms', 'long', LONG_MAX, true, 'Maximum time a message stays ineligible for compaction.', {
    min: 1,
  }),
  broker('log.cleaner.threads', 'int', '1', true, 'Background threads compacting logs, in each partition worker.', { min: 0 }),
  broker('log.cleaner.min.cleanable.ratio', 'double', '0.5', true, 'Minimum dirty ratio of a log before it is compacted.', {
    min: 0,
    max: 1,
  }),
  broker('log.preallocate', 'boolean', 'false', true, 'Preallocate segment files when they are created.'),
  broker('message.max.bytes', 'int', '1048588', true, 'Largest record batch the broker accepts.', { min: 0 }),
  broker('max.decompressed.message.bytes', 'int', '2147483639', true, 'Largest decompressed batch the broker accepts.', { min: 0 }),
  broker(
    'log.message.timestamp.type',
    'string',
    'CreateTime',
    true,
    'Whether a record keeps the producer timestamp or gets the append time.',
    { oneOf: TIMESTAMP_TYPES },
  ),
  broker('log.message.timestamp.before.max.ms', 'long', LONG_MAX, true, 'How far in the past a CreateTime timestamp may be.', { min: 0 }),
  broker('log.message.timestamp.after.max.ms', 'long', '3600000', true, 'How far in the future a CreateTime timestamp may be.', { min: 0 }),
  broker('compression.type', 'string', 'producer', true, 'Compression of stored batches; producer keeps what the producer sent.', {
    oneOf: COMPRESSION_TYPES,
  }),
  broker('compression.gzip.level', 'int', '-1', true, 'gzip level when the broker compresses (-1 is the codec default).', {
    min: -1,
    max: 9,
  }),
  broker('compression.lz4.level', 'int', '9', true, 'lz4 level when the broker compresses.', { min: 1, max: 17 }),
  broker('compression.zstd.level', 'int', '3', true, 'zstd level when the broker compresses.', { min: -131072, max: 22 }),
  broker('min.insync.replicas', 'int', '1', true, 'Replicas that must acknowledge an acks=all write.', { min: 1 }),
  broker('unclean.leader.election.enable', 'boolean', 'false', true, 'Whether an out-of-sync replica may become leader.'),
  broker(
    'replica.lag.time.max.ms',
    'long',
    '30000',
    false,
    'A follower that has not caught up with its leader for this long leaves the ISR.',
    { min: 1 },
  ),
  broker(
    'socket.request.max.bytes',
    'int',
    '104857600',
    false,
    'Largest request frame; larger ones close the connection before any allocation.',
    { min: 1 },
  ),
  broker('queued.max.requests', 'int', '500', false, 'Responses pending on one connection before the broker stops reading it.', { min: 1 }),
  broker('connections.max.idle.ms', 'long', '600000', false, 'Connections idle for longer are closed.'),
  broker(
    'sasl.enabled.mechanisms',
    'list',
    'GSSAPI',
    true,
    'SASL mechanisms served on SASL listeners (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512; GSSAPI and OAUTHBEARER are not served). Per listener: listener.name.<listener>.sasl.enabled.mechanisms.',
  ),
  broker(
    'sasl.mechanism.inter.broker.protocol',
    'string',
    'GSSAPI',
    false,
    'The SASL mechanism brokers use towards each other when the inter-broker listener is a SASL one.',
  ),
  broker(
    'connections.max.reauth.ms',
    'long',
    '0',
    false,
    'Longest SASL session before the client must re-authenticate (KIP-368); 0 disables. Per listener and mechanism: listener.name.<listener>.<mechanism>.connections.max.reauth.ms.',
    { min: 0 },
  ),
  broker(
    'connection.failed.authentication.delay.ms',
    'int',
    '100',
    false,
    'How long the response to a failed authentication, and the close after it, are delayed.',
    { min: 0 },
  ),
  broker('quota.window.num', 'int', '11', false, 'Samples kept to measure client quota rates.', { min: 1 }),
  broker('quota.window.size.seconds', 'int', '1', false, 'Time span of each client quota sample.', { min: 1 }),
  broker(
    'zookeeper.connect',
    'string',
    null,
    false,
    'ZooKeeper connection string host:port[,host:port][/chroot]; set, the broker is a member of a cluster.',
  ),
  broker(
    'zookeeper.session.timeout.ms',
    'int',
    '18000',
    false,
    'ZooKeeper session timeout: a broker silent for longer leaves the cluster.',
    { min: 1 },
  ),
  broker(
    'zookeeper.connection.timeout.ms',
    'int',
    null,
    false,
    'How long the broker waits to connect to ZooKeeper; defaults to the session timeout.',
    { min: 1 },
  ),
  broker('broker.rack', 'string', null, false, 'The rack of this broker, for rack-aware replica assignment.'),
  broker(
    'inter.broker.listener.name',
    'string',
    null,
    false,
    'The listener brokers use to reach each other; defaults to the one named by security.inter.broker.protocol.',
  ),
  broker('num.replica.fetchers', 'int', '1', true, 'Fetcher connections per source broker copying partitions this broker follows.', {
    min: 1,
  }),
  broker('replica.fetch.max.bytes', 'int', '1048576', false, 'Bytes a follower asks for per partition in one fetch.', { min: 0 }),
  broker('replica.fetch.response.max.bytes', 'int', '10485760', false, 'Bytes a follower asks for in one fetch response.', { min: 0 }),
  broker('replica.fetch.wait.max.ms', 'int', '500', false, 'How long a follower fetch waits on the leader for data.', { min: 0 }),
  broker('replica.fetch.min.bytes', 'int', '1', false, 'Bytes a follower fetch waits for on the leader.', { min: 1 }),
  broker('replica.fetch.backoff.ms', 'int', '1000', false, 'How long a follower waits after a failed fetch.', { min: 0 }),
  broker('replica.socket.timeout.ms', 'int', '30000', false, 'Request timeout of follower fetches.', { min: 1 }),
  broker('controller.socket.timeout.ms', 'int', '30000', false, "Request timeout of the controller's requests to brokers.", { min: 1 }),
  broker('controlled.shutdown.enable', 'boolean', 'true', false, 'On SIGTERM, move leaderships away before closing the logs.'),
  broker('controlled.shutdown.max.retries', 'int', '3', false, 'Attempts at a controlled shutdown before shutting down uncleanly.', {
    min: 1,
  }),
  broker('controlled.shutdown.retry.backoff.ms', 'long', '5000', false, 'Wait between controlled shutdown attempts.', { min: 0 }),
  broker(
    'offsets.topic.replication.factor',
    'short',
    '3',
    false,
    'Replication factor of __consumer_offsets (a single broker without ZooKeeper uses 1).',
    { min: 1 },
  ),
  broker(
    'auto.leader.rebalance.enable',
    'boolean',
    'true',
    false,
    'Move leadership back to preferred replicas when the imbalance exceeds the threshold.',
  ),
  broker('leader.imbalance.check.interval.seconds', 'long', '300', false, 'How often the controller checks leader imbalance.', { min: 1 }),
  broker(
    'leader.imbalance.per.broker.percentage',
    'int',
    '10',
    false,
    'Imbalance per broker (percent) above which preferred leaders are elected.',
    { min: 0 },
  ),
  broker(
    'num.partition.workers',
    'int',
    String(availableParallelism()),
    false,
    'Sluice: worker threads owning partition logs (default: the number of cores).',
    { min: 1 },
  ),
  broker('offsets.topic.num.partitions', 'int', '50', false, 'Partitions of __consumer_offsets.', { min: 1 }),
  broker('transaction.state.log.num.partitions', 'int', '50', false, 'Partitions of __transaction_state.', { min: 1 }),
  broker(
    'transaction.state.log.replication.factor',
    'short',
    '3',
    false,
    'Replication factor of __transaction_state (a single broker without ZooKeeper uses 1).',
    { min: 1 },
  ),
  broker(
    'transaction.state.log.min.isr',
    'int',
    '2',
    false,
    'min.insync.replicas of __transaction_state (capped at its replication factor).',
    { min: 1 },
  ),
  broker('transaction.state.log.segment.bytes', 'int', '104857600', false, 'Segment size of __transaction_state.', { min: 1 }),
  broker(
    'share.coordinator.state.topic.num.partitions',
    'int',
    '50',
    false,
    'Partitions of __share_group_state (should not change after deployment).',
    { min: 1 },
  ),
  broker(
    'share.coordinator.state.topic.replication.factor',
    'short',
    '3',
    false,
    'Replication factor of __share_group_state (a single broker without ZooKeeper uses 1).',
    { min: 1 },
  ),
  broker('share.coordinator.state.topic.min.isr', 'short', '2', false, 'min.insync.replicas of __share_group_state.', { min: 1 }),
  broker('share.coordinator.state.topic.segment.bytes', 'int', '104857600', false, 'Segment size of __share_group_state.', { min: 1 }),
  broker(
    'share.coordinator.snapshot.update.records.per.snapshot',
    'int',
    '500',
    false,
    'ShareUpdate records the share coordinator writes between two ShareSnapshot records of a share-partition.',
    { min: 0, max: 500 },
  ),
  broker(
    'share.coordinator.write.timeout.ms',
    'int',
    '5000',
    false,
    'How long a share coordinator write waits for every in-sync replica of __share_group_state.',
    { min: 1 },
  ),
  broker(
    'share.coordinator.state.topic.prune.interval.ms',
    'int',
    '300000',
    false,
    'How often the share coordinator deletes the __share_group_state records below the oldest snapshot it still needs.',
    { min: 1 },
  ),
  broker(
    'share.coordinator.cold.partition.snapshot.interval.ms',
    'int',
    '300000',
    false,
    'How old the last snapshot of a share-partition may grow before the share coordinator writes a fresh one.',
    { min: 1 },
  ),
  broker('transaction.max.timeout.ms', 'int', '900000', false, 'Longest transaction timeout a producer may ask for.', { min: 1 }),
  broker('transactional.id.expiration.ms', 'int', '604800000', false, 'How long a transactional id without transactions is kept.', {
    min: 1,
  }),
  broker(
    'transaction.abort.timed.out.transaction.cleanup.interval.ms',
    'int',
    '10000',
    false,
    'How often transactions past their timeout are aborted.',
    { min: 1 },
  ),
  broker(
    'transaction.remove.expired.transaction.cleanup.interval.ms',
    'int',
    '3600000',
    false,
    'How often expired transactional ids are removed.',
    { min: 1 },
  ),
  broker(
    'replica.alter.log.dirs.io.max.bytes.per.second',
    'long',
    LONG_MAX,
    false,
    'Bytes per second that partitions moving between log dirs (AlterReplicaLogDirs) copy, in all.',
    { min: 1 },
  ),
  broker(
    'producer.id.expiration.ms',
    'int',
    '86400000',
    true,
    'How long a partition keeps the state of an idle producer without an open transaction.',
    { min: 1 },
  ),
  broker(
    'producer.id.expiration.check.interval.ms',
    'int',
    '600000',
    false,
    'How often partitions forget producers idle for producer.id.expiration.ms.',
    { min: 1 },
  ),
  broker('offsets.retention.minutes', 'int', '10080', false, 'How long committed offsets of an empty group are kept.', { min: 1 }),
  broker('group.initial.rebalance.delay.ms', 'int', '3000', false, 'How long the first rebalance of a new group waits for more members.'),
  broker('group.min.session.timeout.ms', 'int', '6000', false, 'Shortest session timeout a classic group member may ask for.', { min: 1 }),
  broker('group.max.session.timeout.ms', 'int', '1800000', false, 'Longest session timeout a classic group member may ask for.', {
    min: 1,
  }),
  broker('group.max.size', 'int', '2147483647', false, 'Most members of a classic group.', { min: 1 }),
  broker('offset.metadata.max.bytes', 'int', '4096', false, 'Longest metadata string an offset commit may carry.', { min: 0 }),
  broker('offsets.retention.check.interval.ms', 'long', '600000', false, 'How often expired offsets are removed.', { min: 1 }),
  broker('group.consumer.heartbeat.interval.ms', 'int', '5000', false, 'Heartbeat interval given to consumer-protocol (KIP-848) members.', {
    min: 1,
  }),
  broker('group.consumer.session.timeout.ms', 'int', '45000', false, 'Session timeout of consumer-protocol (KIP-848) members.', { min: 1 }),
  broker('group.consumer.max.size', 'int', '2147483647', false, 'Most members of a consumer-protocol group.', { min: 1 }),
  broker(
    'group.consumer.assignors',
    'list',
    'uniform,range',
    false,
    'Server-side assignors of consumer-protocol groups; the first is the default.',
  ),
  broker('group.share.heartbeat.interval.ms', 'int', '5000', false, 'The heartbeat interval given to the members of a share group.', {
    min: 1,
  }),
  broker('group.share.min.heartbeat.interval.ms', 'int', '5000', false, 'The minimum heartbeat interval for share group members.', {
    min: 1,
  }),
  broker('group.share.max.heartbeat.interval.ms', 'int', '15000', false, 'The maximum heartbeat interval for share group members.', {
    min: 1,
  }),
  broker(
    'group.share.session.timeout.ms',
    'int',
    '45000',
    false,
    'The timeout to detect client failures when using the share group protocol.',
    { min: 1 },
  ),
  broker('group.share.min.session.timeout.ms', 'int', '45000', false, 'The minimum allowed session timeout for share group members.', {
    min: 1,
  }),
  broker('group.share.max.session.timeout.ms', 'int', '60000', false, 'The maximum allowed session timeout for share group members.', {
    min: 1,
  }),
  broker('group.share.max.size', 'int', '200', false, 'The maximum number of members that a single share group can accommodate.', {
    min: 1,
    max: 1000,
  }),
  broker('group.share.assignors', 'list', 'simple', false, 'The server-side assignor of share groups (exactly one).', {
    oneOf: ['simple'],
  }),
  broker('group.share.assignment.interval.ms', 'int', '1000', false, 'The interval between assignment updates for a share group.', {
    min: 0,
  }),
  broker(
    'group.share.min.assignment.interval.ms',
    'int',
    '0',
    false,
    'The minimum interval between assignment updates for a share group.',
    { min: 0 },
  ),
  broker(
    'group.share.max.assignment.interval.ms',
    'int',
    '15000',
    false,
    'The maximum interval between assignment updates for a share group.',
    { min: 0 },
  ),
  broker(
    'group.share.initialize.retry.interval.ms',
    'int',
    '30000',
    false,
    'Time elapsed before retrying initialize share group state request.',
    { min: 1 },
  ),
  broker(
    'group.share.record.lock.duration.ms',
    'int',
    '30000',
    false,
    'The record acquisition lock duration in milliseconds for share groups.',
    { min: 1000, max: 3600000 },
  ),
  broker(
    'group.share.min.record.lock.duration.ms',
    'int',
    '15000',
    false,
    'The minimum value of a group configuration for record acquisition lock duration in milliseconds.',
    { min: 1000, max: 30000 },
  ),
  broker(
    'group.share.max.record.lock.duration.ms',
    'int',
    '60000',
    false,
    'The maximum value of a group configuration for record acquisition lock duration in milliseconds.',
    { min: 30000, max: 3600000 },
  ),
  broker(
    'group.share.delivery.count.limit',
    'int',
    '5',
    false,
    'The maximum number of delivery attempts for a record delivered to a share group.',
    { min: 2, max: 10 },
  ),
  broker(
    'group.share.min.delivery.count.limit',
    'int',
    '2',
    false,
    'The minimum value of a group configuration for the maximum number of delivery attempts for a record delivered to a share group.',
    { min: 2, max: 5 },
  ),
  broker(
    'group.share.max.delivery.count.limit',
    'int',
    '10',
    false,
    'The maximum value of a group configuration for the maximum number of delivery attempts for a record delivered to a share group.',
    { min: 5, max: 25 },
  ),
  broker('group.share.partition.max.record.locks', 'int', '2000', false, 'Share-group record lock limit per share-partition.', {
    min: 100,
    max: 10000,
  }),
  broker(
    'group.share.min.partition.max.record.locks',
    'int',
    '100',
    false,
    'The minimum value of a group configuration for the record lock limit per share-partition.',
    { min: 100, max: 2000 },
  ),
  broker(
    'group.share.max.partition.max.record.locks',
    'int',
    '4000',
    false,
    'The maximum value of a group configuration for the record lock limit per share-partition.',
    { min: 2000, max: 10000 },
  ),
  broker('group.share.max.share.sessions', 'int', '2000', false, 'The maximum number of share sessions per broker.', { min: 1 }),
  broker(
    'errors.deadletterqueue.auto.create.topics.enable',
    'boolean',
    'false',
    true,
    "Whether a share group's missing dead-letter topic is created when a record is first written to it (KIP-1191).",
  ),
  broker(
    'errors.deadletterqueue.topic.name.prefix',
    'string',
    'dlq.',
    true,
    'The prefix every share-group dead-letter topic name must have; empty allows any name (KIP-1191).',
  ),
  broker('group.consumer.min.session.timeout.ms', 'int', '45000', false, 'Shortest consumer.session.timeout.ms a group config may set.', {
    min: 1,
  }),
  broker('group.consumer.max.session.timeout.ms', 'int', '60000', false, 'Longest consumer.session.timeout.ms a group config may set.', {
    min: 1,
  }),
  broker(
    'group.consumer.min.heartbeat.interval.ms',
    'int',
    '5000',
    false,
    'Shortest consumer.heartbeat.interval.ms a group config may set.',
    { min: 1 },
  ),
  broker(
    'group.consumer.max.heartbeat.interval.ms',
    'int',
    '15000',
    false,
    'Longest consumer.heartbeat.interval.ms a group config may set.',
    { min: 1 },
  ),
  broker('cluster.id', 'string', null, false, 'Sluice: the cluster id; generated and stored in meta.properties when absent.'),
  broker(
    'num.io.threads',
    'int',
    '8',
    true,
    "Accepted for compatibility: Kafka's request handler threads (Sluice serves requests on its event loop and partition workers).",
    { min: 1 },
  ),
  broker(
    'num.network.threads',
    'int',
    '3',
    true,
    "Accepted for compatibility: Kafka's network threads (Sluice serves sockets on its event loop).",
    { min: 1 },
  ),
  broker('num.recovery.threads.per.data.dir', 'int', '2', true, "Accepted for compatibility: Kafka's log recovery threads per log dir.", {
    min: 1,
  }),
  broker('background.threads', 'int', '10', true, "Accepted for compatibility: Kafka's background task threads.", { min: 1 }),
  broker(
    'log.cleaner.dedupe.buffer.size',
    'long',
    '134217728',
    true,
    'Memory the log cleaner uses to deduplicate keys, over all cleaner threads.',
  ),
  broker('log.cleaner.io.buffer.size', 'int', '524288', true, 'I/O buffer memory of the log cleaner, over all cleaner threads.', {
    min: 0,
  }),
  broker('log.cleaner.io.buffer.load.factor', 'double', '0.9', true, "Load factor of the log cleaner's deduplication buffer."),
  broker('log.cleaner.io.max.bytes.per.second', 'double', '1.7976931348623157E308', true, 'I/O rate the log cleaner may use.'),
  broker('log.cleaner.backoff.ms', 'long', '15000', true, 'How long the log cleaner sleeps when there is nothing to clean.', { min: 0 }),
  broker('max.connection.creation.rate', 'int', '2147483647', true, 'Most new connections per second the broker accepts.', { min: 0 }),
  broker(
    'sasl.kerberos.service.name',
    'string',
    null,
    true,
    'Kerberos principal name Kafka runs as (GSSAPI is not served by this broker).',
  ),
  broker('sasl.kerberos.kinit.cmd', 'string', '/usr/bin/kinit', true, 'Kerberos kinit command path (GSSAPI is not served by this broker).'),
  broker(
    'sasl.kerberos.ticket.renew.window.factor',
    'double',
    '0.8',
    true,
    'Kerberos: fraction of the ticket lifetime after which it is renewed.',
  ),
  broker('sasl.kerberos.ticket.renew.jitter', 'double', '0.05', true, 'Kerberos: random jitter added to the renewal time.'),
  broker('sasl.kerberos.min.time.before.relogin', 'long', '60000', true, 'Kerberos: login thread sleep time between refresh attempts.'),
  broker('sasl.kerberos.principal.to.local.rules', 'list', 'DEFAULT', true, 'Rules mapping Kerberos principal names to short names.'),
  broker('sasl.jaas.config', 'password', null, true, 'JAAS login context parameters for SASL connections.'),
  broker(
    'sasl.login.refresh.window.factor',
    'double',
    '0.8',
    true,
    'OAUTHBEARER: fraction of the credential lifetime after which it is refreshed.',
    { min: 0.5, max: 1 },
  ),
  broker('sasl.login.refresh.window.jitter', 'double', '0.05', true, 'OAUTHBEARER: random jitter added to the refresh time.', {
    min: 0,
    max: 0.25,
  }),
  broker('sasl.login.refresh.min.period.seconds', 'short', '60', true, 'OAUTHBEARER: shortest wait between two refreshes.', {
    min: 0,
    max: 900,
  }),
  broker('sasl.login.refresh.buffer.seconds', 'short', '300', true, 'OAUTHBEARER: time before credential expiry to keep when refreshing.', {
    min: 0,
    max: 3600,
  }),
  broker('leader.replication.throttled.rate', 'long', LONG_MAX, true, 'Bytes per second leaders may send to throttled replicas.', {
    min: 0,
  }),
  broker('follower.replication.throttled.rate', 'long', LONG_MAX, true, 'Bytes per second followers may fetch for throttled replicas.', {
    min: 0,
  }),
  broker(
    'metric.reporters',
    'list',
    '',
    true,
    "Accepted for compatibility: Kafka's metrics reporter classes (Sluice exports Prometheus metrics on metrics.listener).",
  ),
  broker('metrics.listener', 'string', null, false, 'Sluice: http://host:port of the Prometheus /metrics endpoint; off when absent.'),
  broker(
    'metrics.producer.clients.max',
    'int',
    '1000',
    false,
    'Sluice: most client ids whose produce batches /metrics breaks down (least recently seen dropped first); 0 turns the breakdown off.',
    { min: 0 },
  ),
  broker(
    'metrics.producer.clients.idle.ms',
    'long',
    '3600000',
    false,
    'Sluice: a client id without a Produce request for this long leaves the per-client produce metrics.',
    { min: 1 },
  ),
  broker(
    'metrics.consumergroup.lag.max.partitions',
    'int',
    '10000',
    false,
    'Sluice: above this many committed group partitions, /metrics exports consumer lag per group and topic only.',
    { min: 0 },
  ),
];

function topic(
  name: string,
  type: ConfigType,
  defaultValue: string | null,
  synonyms: readonly BrokerSynonym[],
  doc: string,
  bounds: Pick<ConfigDefinition, 'min' | 'max' | 'oneOf'> = {},
): TopicConfigDefinition {
  return { name, type, defaultValue, synonyms, doc, ...bounds };
}

const same = (key: string): BrokerSynonym[] => [{ key, scale: 1 }];

/** Every topic-level key Kafka 4.4 describes, with its broker synonyms. */
export const TOPIC_CONFIGS: readonly TopicConfigDefinition[] = [
  topic('cleanup.policy', 'list', 'delete', same('log.cleanup.policy'), 'delete old segments, compact by key, or both.', {
    oneOf: CLEANUP_POLICIES,
  }),
  topic('compression.gzip.level', 'int', '-1', same('compression.gzip.level'), 'gzip level when the broker compresses.', {
    min: -1,
    max: 9,
  }),
  topic('compression.lz4.level', 'int', '9', same('compression.lz4.level'), 'lz4 level when the broker compresses.', { min: 1, max: 17 }),
  topic(
    'compression.type',
    'string',
    'producer',
    same('compression.type'),
    "Compression of stored batches; producer keeps the producer's.",
    { oneOf: COMPRESSION_TYPES },
  ),
  topic('compression.zstd.level', 'int', '3', same('compression.zstd.level'), 'zstd level when the broker compresses.', {
    min: -131072,
    max: 22,
  }),
  topic(
    'delete.retention.ms',
    'long',
    '86400000',
    same('log.cleaner.delete.retention.ms'),
    'How long tombstones stay in a compacted topic.',
    { min: 0 },
  ),
  topic(
    'errors.deadletterqueue.group.enable',
    'boolean',
    'false',
    [],
    'Whether share groups may route failed records to a dead letter queue.',
  ),
  topic('file.delete.delay.ms', 'long', '60000', same('log.segment.delete.delay.ms'), 'How long a deleted segment stays on disk.', {
    min: 0,
  }),
  topic('flush.messages', 'long', LONG_MAX, same('log.flush.interval.messages'), 'Messages appended before the log is fsynced.', {
    min: 1,
  }),
  topic('flush.ms', 'long', LONG_MAX, same('log.flush.interval.ms'), 'Maximum time before appended messages are fsynced.', { min: 0 }),
  topic('follower.replication.throttled.replicas', 'list', '', [], 'Replicas whose follower replication is throttled.'),
  topic('index.interval.bytes', 'int', '4096', same('log.index.interval.bytes'), 'Bytes of log between offset index entries.', { min: 0 }),
  topic('leader.replication.throttled.replicas', 'list', '', [], 'Replicas whose leader replication is throttled.'),
  topic(
    'local.retention.bytes',
    'long',
    '-2',
    same('log.local.retention.bytes'),
    'Local bytes kept with tiered storage; -2 means retention.bytes.',
    { min: -2 },
  ),
  topic('local.retention.ms', 'long', '-2', same('log.local.retention.ms'), 'Local time kept with tiered storage; -2 means retention.ms.', {
    min: -2,
  }),
  topic(
    'max.compaction.lag.ms',
    'long',
    LONG_MAX,
    same('log.cleaner.max.compaction.lag.ms'),
    'Maximum time a message stays ineligible for compaction.',
    { min: 1 },
  ),
  topic(
    'max.decompressed.message.bytes',
    'int',
    '2147483639',
    same('max.decompressed.message.bytes'),
    'Largest decompressed batch the broker accepts.',
    { min: 0 },
  ),
  topic('max.message.bytes', 'int', '1048588', same('message.max.bytes'), 'Largest record batch the topic accepts.', { min: 0 }),
  topic(
    'message.timestamp.after.max.ms',
    'long',
    '3600000',
    same('log.message.timestamp.after.max.ms'),
    'How far in the future a CreateTime timestamp may be.',
    { min: 0 },
  ),
  topic(
    'message.timestamp.before.max.ms',
    'long',
    LONG_MAX,
    same('log.message.timestamp.before.max.ms'),
    'How far in the past a CreateTime timestamp may be.',
    { min: 0 },
  ),
  topic(
    'message.timestamp.type',
    'string',
    'CreateTime',
    same('log.message.timestamp.type'),
    'CreateTime keeps the producer timestamp; LogAppendTime stamps the append time.',
    { oneOf: TIMESTAMP_TYPES },
  ),
  topic('min.cleanable.dirty.ratio', 'double', '0.5', same('log.cleaner.min.cleanable.ratio'), 'Minimum dirty ratio before compaction.', {
    min: 0,
    max: 1,
  }),
  topic(
    'min.compaction.lag.ms',
    'long',
    '0',
    same('log.cleaner.min.compaction.lag.ms'),
    'Minimum age of a message before it may be compacted.',
    { min: 0 },
  ),
  topic('min.insync.replicas', 'int', '1', same('min.insync.replicas'), 'Replicas that must acknowledge an acks=all write.', { min: 1 }),
  topic('preallocate', 'boolean', 'false', same('log.preallocate'), 'Preallocate segment files.'),
  topic(
    'remote.copy.lag.bytes',
    'long',
    '-1',
    same('log.remote.copy.lag.bytes'),
    'Tiered storage: bytes the local log may hold before copying.',
    { min: -1 },
  ),
  topic('remote.copy.lag.ms', 'long', '0', same('log.remote.copy.lag.ms'), 'Tiered storage: time before a segment is copied.', { min: 0 }),
  topic('remote.log.copy.disable', 'boolean', 'false', [], 'Tiered storage: stop copying segments to remote storage.'),
  topic('remote.log.delete.on.disable', 'boolean', 'false', [], 'Tiered storage: delete remote data when it is disabled.'),
  topic('remote.storage.enable', 'boolean', 'false', [], 'Tiered storage for this topic (not available on this broker).'),
  topic('retention.bytes', 'long', '-1', same('log.retention.bytes'), 'Maximum size of a partition log; -1 is unbounded.'),
  topic(
    'retention.ms',
    'long',
    '604800000',
    [
      { key: 'log.retention.ms', scale: 1 },
      { key: 'log.retention.minutes', scale: MINUTE_MS },
      { key: 'log.retention.hours', scale: HOUR_MS },
    ],
    'How long a segment is kept; -1 keeps forever.',
    { min: -1 },
  ),
  topic('segment.bytes', 'int', '1073741824', same('log.segment.bytes'), 'Maximum size of a segment file.', { min: MIN_SEGMENT_BYTES }),
  topic('segment.index.bytes', 'int', '10485760', same('log.index.size.max.bytes'), 'Maximum size of an offset index file.', { min: 4 }),
  topic(
    'segment.jitter.ms',
    'long',
    '0',
    [
      { key: 'log.roll.jitter.ms', scale: 1 },
      { key: 'log.roll.jitter.hours', scale: HOUR_MS },
    ],
    'Maximum random jitter subtracted from the roll time.',
    { min: 0 },
  ),
  topic(
    'segment.ms',
    'long',
    '604800000',
    [
      { key: 'log.roll.ms', scale: 1 },
      { key: 'log.roll.hours', scale: HOUR_MS },
    ],
    'Maximum age of the active segment before it rolls.',
    { min: 1 },
  ),
  topic(
    'unclean.leader.election.enable',
    'boolean',
    'false',
    same('unclean.leader.election.enable'),
    'Whether an out-of-sync replica may become leader.',
  ),
];

/**
 * Dynamic keys Kafka accepts only on one broker's resource, never the cluster default ("Cannot
 * update these configs at default cluster level"): the listeners and the SASL settings.
 */
export const PER_BROKER_DYNAMIC_CONFIGS: ReadonlySet<string> = new Set(
  ['listeners', 'advertised.listeners', 'listener.security.protocol.map'].concat(
    BROKER_CONFIGS.filter((d) => d.dynamic && d.name.startsWith('sasl.')).map((d) => d.name),
  ),
);

/** Kafka changes TLS settings live only per listener (`listener.name.<listener>.ssl.…`), never unprefixed. */
export function isListenerOnlySecurityConfig(name: string): boolean {
  return name.startsWith('ssl.');
}

export const BROKER_CONFIG_BY_NAME: ReadonlyMap<string, BrokerConfigDefinition> = new Map(BROKER_CONFIGS.map((d) => [d.name, d]));
export const TOPIC_CONFIG_BY_NAME: ReadonlyMap<string, TopicConfigDefinition> = new Map(TOPIC_CONFIGS.map((d) => [d.name, d]));

const INT_RANGE = { lo: -2147483648n, hi: 2147483647n, name: 'INT' };
const SHORT_RANGE = { lo: -32768n, hi: 32767n, name: 'SHORT' };
const LONG_RANGE = { lo: -9223372036854775808n, hi: 9223372036854775807n, name: 'LONG' };

function integer(text: string, range: { lo: bigint; hi: bigint; name: string }): bigint | string {
  if (!/^[+-]?\d+$/.test(text)) return `Not a number of type ${range.name}`;
  const n = BigInt(text);
  return n < range.lo || n > range.hi ? `Not a number of type ${range.name}` : n;
}

function reason(def: ConfigDefinition, text: string): string | null {
  let numeric: number | null = null;
  switch (def.type) {
    case 'boolean':
      if (!/^(true|false)$/i.test(text)) return 'Expected value to be either true or false';
      break;
    case 'int':
    case 'short':
    case 'long': {
      const n = integer(text, def.type === 'int' ? INT_RANGE : def.type === 'short' ? SHORT_RANGE : LONG_RANGE);
      if (typeof n === 'string') return n;
      numeric = Number(n);
      break;
    }
    case 'double': {
      const n = Number(text);
      if (text === '' || !Number.isFinite(n)) return 'Not a number of type DOUBLE';
      numeric = n;
      break;
    }
    case 'list':
      if (def.oneOf !== undefined) {
        const items = splitList(text);
        const bad = items.find((i) => !def.oneOf!.includes(i));
        if (bad !== undefined) return `String must be one of: ${def.oneOf.join(', ')}`;
      }
      break;
    case 'string':
    case 'class':
    case 'password':
      if (def.oneOf !== undefined && !def.oneOf.includes(text)) return `String must be one of: ${def.oneOf.join(', ')}`;
      break;
  }
  if (numeric !== null && def.min !== undefined && numeric < def.min) return `Value must be at least ${def.min}`;
  if (numeric !== null && def.max !== undefined && numeric > def.max) return `Value must be no more than ${def.max}`;
  return null;
}

/** Kafka's message for a value its ConfigDef would refuse, or null when the value is valid. */
export function validateValue(def: ConfigDefinition, value: string): string | null {
  const text = value.trim();
  const why = reason(def, text);
  return why === null ? null : `Invalid value ${value} for configuration ${def.name}: ${why}`;
}

export function splitList(value: string): string[] {
  const trimmed = value.trim();
  return trimmed === '' ? [] : trimmed.split(/\s*,\s*/);
}
