/**
 * A small Kafka wire client on Sluice's generated codecs: connections with version
 * negotiation, and the admin, producer, consumer and group operations behind `sluice topics`,
 * `configs`, `produce`, `consume` and `groups`. It talks to any Kafka-compatible broker.
 */
export { ApiVersionTable, CLIENT_API_RANGES, type BrokerApiRange, type VersionRange } from './api-versions.js';
export { parseBootstrapServers, parseBrokerAddress, type BrokerAddress } from './broker-address.js';
export { KafkaCluster, type ClusterOptions, type MetadataOptions } from './cluster.js';
export type { BrokerNode, ClusterMetadata, PartitionMetadata, TopicMetadata } from './cluster-metadata.js';
export { KafkaConnection, type ConnectionOptions, type RequestOptions } from './connection.js';
export { authenticate, type SaslCredentials } from './sasl-client.js';
export { clientSecurity, type ClientSecurity } from './client-security-config.js';
export {
  alterScramCredentials,
  describeScramCredentials,
  type ScramCredentialChange,
  type UserScramCredentials,
} from './scram-credentials-admin.js';
export {
  ElectionTypes,
  ReplicaAdminClient,
  type OngoingReassignment,
  type BrokerLogDir,
  type PartitionOutcome,
  type ReplicaLogDir,
} from './replica-admin-client.js';
export {
  KafkaAdminClient,
  type AclBindingData,
  type AclFilterData,
  type AdminOptions,
  type ConfigAlteration,
  type ConfigEntry,
  type ConfigSynonym,
  type NewTopic,
} from './admin-client.js';
export {
  ClientQuotaAdminClient,
  type DescribedClientQuotas,
  type QuotaChange,
  type QuotaEntityNames,
  type QuotaFilterComponent,
} from './client-quota-admin.js';
export { AlterConfigOp, ConfigResourceType, ConfigSource, configSourceName, type ConfigResource } from './config-resources.js';
export { KafkaProducerClient, type Acks, type PartitionAppend, type ProducerOptions, type ProducerRecord } from './producer-client.js';
export { BATCHING_DEFAULTS, BatchingProducer, type BatchingProducerOptions, type ProducerStats } from './producer-batching.js';
export { KafkaConsumerClient, type ConsumerOptions, type OffsetSpec, type Positions } from './consumer-client.js';
export type { ConsumedRecord } from './fetched-records.js';
export {
  KafkaGroupAdminClient,
  type GroupAdminOptions,
  type GroupDescription,
  type GroupListing,
  type GroupMember,
  type PartitionOffset,
  type PartitionResult,
  type ShareGroupDescription,
  type SharePartitionOffset,
  type TopicResult,
} from './group-admin-client.js';
export { decodeMemberAssignment, type TopicPartitions } from './consumer-protocol.js';
export { planOffsetReset, resetTarget, type PartitionPosition, type ResetSpec } from './offset-reset.js';
export { byTopic, comparePartitions, listPartitionOffsets } from './partition-offsets.js';
export { COMPRESSION_NAMES, compressionType, isCompressionName, type CompressionName } from './compression-codecs.js';
export { murmur2, partitionForKey } from './partitioner.js';
