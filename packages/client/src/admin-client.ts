/**
 * Topic, config and ACL administration over the wire: the requests behind `sluice topics`,
 * `sluice configs` and `sluice acls`, sent to any broker (KRaft brokers forward them to the controller) except
 * a broker's own configs, which that broker answers. Broker error codes become KafkaErrors
 * carrying the broker's message.
 */
import { ErrorCode } from '@sluice/protocol/errors.js';
import {
  CreateAclsRequest,
  CreateAclsResponse,
  DeleteAclsRequest,
  DeleteAclsResponse,
  DescribeAclsRequest,
  DescribeAclsResponse,
  CreatePartitionsRequest,
  CreatePartitionsResponse,
  CreateTopicsRequest,
  CreateTopicsResponse,
  DeleteTopicsRequest,
  DeleteTopicsResponse,
  DescribeConfigsRequest,
  DescribeConfigsResponse,
  IncrementalAlterConfigsRequest,
  IncrementalAlterConfigsResponse,
} from '@sluice/protocol/messages/index.js';
import { brokerError, throwIfError } from './client-errors.js';
import type { KafkaCluster } from './cluster.js';
import type { TopicMetadata } from './cluster-metadata.js';
import { ConfigResourceType, type AlterConfigOp, type ConfigResource } from './config-resources.js';
import type { KafkaConnection } from './connection.js';

export interface NewTopic {
  readonly name: string;
  /** Omitted: the broker's `num.partitions`. */
  readonly partitions?: number;
  /** Omitted: the broker's `default.replication.factor`. */
  readonly replicationFactor?: number;
  readonly configs?: ReadonlyMap<string, string>;
}

export interface ConfigSynonym {
  readonly name: string;
  readonly value: string | null;
  readonly source: number;
}

export interface ConfigEntry {
  readonly name: string;
  readonly value: string | null;
  readonly readOnly: boolean;
  readonly source: number;
  readonly isSensitive: boolean;
  readonly synonyms: readonly ConfigSynonym[];
}

export interface ConfigAlteration {
  readonly name: string;
  readonly op: AlterConfigOp;
  /** Ignored by Delete. */
  readonly value: string | null;
}

/** An ACL binding with Kafka's wire codes (resource type, pattern type, operation, permission type). */
export interface AclBindingData {
  readonly resourceType: number;
  readonly resourceName: string;
  readonly patternType: number;
  readonly principal: string;
  readonly host: string;
  readonly operation: number;
  readonly permissionType: number;
}

/** An ACL filter: null names, principals and hosts match any; ANY (1) codes match any. */
export interface AclFilterData extends Omit<AclBindingData, 'resourceName' | 'principal' | 'host'> {
  readonly resourceName: string | null;
  readonly principal: string | null;
  readonly host: string | null;
}

function wireFilter(f: AclFilterData) {
  return {
    resourceTypeFilter: f.resourceType,
    resourceNameFilter: f.resourceName,
    patternTypeFilter: f.patternType,
    principalFilter: f.principal,
    hostFilter: f.host,
    operation: f.operation,
    permissionType: f.permissionType,
  };
}

export interface AdminOptions {
  /** The `timeoutMs` sent with CreateTopics, DeleteTopics and CreatePartitions. */
  readonly operationTimeoutMs?: number;
}

const DEFAULT_OPERATION_TIMEOUT_MS = 30_000;
/** CreateTopics v4+: -1 asks the broker for its default. */
const BROKER_DEFAULT = -1;

export class KafkaAdminClient {
  private readonly operationTimeoutMs: number;

  constructor(
    private readonly cluster: KafkaCluster,
    options: AdminOptions = {},
  ) {
    this.operationTimeoutMs = options.operationTimeoutMs ?? DEFAULT_OPERATION_TIMEOUT_MS;
  }

  /** Every topic name, internal ones included, sorted. */
  async listTopics(): Promise<string[]> {
    const metadata = await this.cluster.metadata(null);
    return [...metadata.topics.keys()].sort();
  }

  /** The named topics (every topic when null), sorted by name; a missing topic is an error. */
  async describeTopics(names: readonly string[] | null): Promise<TopicMetadata[]> {
    const metadata = await this.cluster.metadata(names);
    const topics = [...metadata.topics.values()].sort((a, b) => a.name.localeCompare(b.name));
    for (const t of topics) throwIfError(t.errorCode, null, `topic '${t.name}'`);
    return topics;
  }

  async createTopic(topic: NewTopic): Promise<void> {
    const connection = await this.cluster.anyConnection();
    const res = await connection.request(CreateTopicsRequest, CreateTopicsResponse, () => ({
      topics: [
        {
          name: topic.name,
          numPartitions: topic.partitions ?? BROKER_DEFAULT,
          replicationFactor: topic.replicationFactor ?? BROKER_DEFAULT,
          configs: [...(topic.configs ?? new Map<string, string>())].map(([name, value]) => ({ name, value })),
        },
      ],
      timeoutMs: this.operationTimeoutMs,
    }));
    const result = single(res.topics, `CreateTopics '${topic.name}'`);
    throwIfError(result.errorCode, result.errorMessage, `cannot create topic '${topic.name}'`);
  }

  async deleteTopic(name: string): Promise<void> {
    const connection = await this.cluster.anyConnection();
    const res = await connection.request(DeleteTopicsRequest, DeleteTopicsResponse, (version) =>
      // v6 names topics by name or id in `topics`; earlier versions by name in `topicNames`.
      version >= 6
        ? { topics: [{ name }], timeoutMs: this.operationTimeoutMs }
        : { topicNames: [name], timeoutMs: this.operationTimeoutMs },
    );
    const result = single(res.responses, `DeleteTopics '${name}'`);
    throwIfError(result.errorCode, result.errorMessage, `cannot delete topic '${name}'`);
  }

  /** Grows the topic to `totalCount` partitions (Kafka cannot shrink a topic). */
  async createPartitions(name: string, totalCount: number): Promise<void> {
    const connection = await this.cluster.anyConnection();
    const res = await connection.request(CreatePartitionsRequest, CreatePartitionsResponse, () => ({
      topics: [{ name, count: totalCount, assignments: null }],
      timeoutMs: this.operationTimeoutMs,
    }));
    const result = single(res.results, `CreatePartitions '${name}'`);
    throwIfError(result.errorCode, result.errorMessage, `cannot alter topic '${name}'`);
  }

  async describeConfigs(resource: ConfigResource, options: { includeSynonyms?: boolean } = {}): Promise<ConfigEntry[]> {
    const connection = await this.connectionFor(resource);
    const res = await connection.request(DescribeConfigsRequest, DescribeConfigsResponse, () => ({
      resources: [{ resourceType: resource.type, resourceName: resource.name, configurationKeys: null }],
      includeSynonyms: options.includeSynonyms ?? false,
    }));
    const result = single(res.results, `DescribeConfigs ${describeResource(resource)}`);
    throwIfError(result.errorCode, result.errorMessage, `cannot describe configs of ${describeResource(resource)}`);
    return result.configs.map((c) => ({
      name: c.name,
      value: c.value,
      readOnly: c.readOnly,
      source: c.configSource,
      isSensitive: c.isSensitive,
      synonyms: c.synonyms.map((s) => ({ name: s.name, value: s.value, source: s.source })),
    }));
  }

  async incrementalAlterConfigs(resource: ConfigResource, alterations: readonly ConfigAlteration[]): Promise<void> {
    const connection = await this.connectionFor(resource);
    const res = await connection.request(IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse, () => ({
      resources: [
        {
          resourceType: resource.type,
          resourceName: resource.name,
          configs: alterations.map((a) => ({ name: a.name, configOperation: a.op, value: a.value })),
        },
      ],
    }));
    const result = single(res.responses, `IncrementalAlterConfigs ${describeResource(resource)}`);
    throwIfError(result.errorCode, result.errorMessage, `cannot alter configs of ${describeResource(resource)}`);
  }

  async createAcls(bindings: readonly AclBindingData[]): Promise<void> {
    const connection = await this.cluster.anyConnection();
    const res = await connection.request(CreateAclsRequest, CreateAclsResponse, () => ({
      creations: bindings.map((b) => ({ ...b, resourcePatternType: b.patternType })),
    }));
    for (const r of res.results) throwIfError(r.errorCode, r.errorMessage, 'cannot create ACLs');
  }

  async describeAcls(filter: AclFilterData): Promise<AclBindingData[]> {
    const connection = await this.cluster.anyConnection();
    const res = await connection.request(DescribeAclsRequest, DescribeAclsResponse, () => wireFilter(filter));
    throwIfError(res.errorCode, res.errorMessage, 'cannot describe ACLs');
    return res.resources.flatMap((r) =>
      r.acls.map((a) => ({ resourceType: r.resourceType, resourceName: r.resourceName, patternType: r.patternType, ...a })),
    );
  }

  /** The bindings each filter removed, in filter order. */
  async deleteAcls(filters: readonly AclFilterData[]): Promise<AclBindingData[][]> {
    const connection = await this.cluster.anyConnection();
    const res = await connection.request(DeleteAclsRequest, DeleteAclsResponse, () => ({ filters: filters.map(wireFilter) }));
    return res.filterResults.map((r) => {
      throwIfError(r.errorCode, r.errorMessage, 'cannot delete ACLs');
      return r.matchingAcls.map((a) => ({
        resourceType: a.resourceType,
        resourceName: a.resourceName,
        patternType: a.patternType,
        principal: a.principal,
        host: a.host,
        operation: a.operation,
        permissionType: a.permissionType,
      }));
    });
  }

  /** A broker's own configs (and its loggers) live on that broker; everything else any broker answers. */
  private async connectionFor(resource: ConfigResource): Promise<KafkaConnection> {
    const ownedByBroker = resource.type === ConfigResourceType.Broker || resource.type === ConfigResourceType.BrokerLogger;
    if (!ownedByBroker || resource.name === '') return this.cluster.anyConnection();
    await this.cluster.metadata([]);
    return this.cluster.nodeConnection(Number(resource.name));
  }
}

function describeResource(resource: ConfigResource): string {
  if (resource.type === ConfigResourceType.Topic) return `topic '${resource.name}'`;
  if (resource.type === ConfigResourceType.Group) return `group '${resource.name}'`;
  return resource.name === '' ? 'the default broker' : `broker ${resource.name}`;
}

/** Requests here name one resource; a response answering anything else is the broker's fault. */
function single<T>(results: readonly T[], request: string): T {
  if (results.length !== 1) {
    throw brokerError(ErrorCode.UNKNOWN_SERVER_ERROR, `${results.length} results for one resource`, request);
  }
  return results[0]!;
}
