/**
 * Metadata (key 3): brokers, cluster id, controller and topics with their partitions. Null
 * topics (or, at v0, an empty list) means every topic; topic ids (v10+) are looked up when any
 * is given, as Kafka does. An unknown topic is created when the client allows it and
 * `auto.create.topics.enable` is on. Kafka answers such a topic with a retriable error while
 * its controller creates it; here creation is synchronous, so the new topic is returned at once.
 * Brokers are described by their endpoint on the listener the request came in on; a broker
 * without that listener is left out, as Kafka does.
 */
import { ZERO_UUID } from '@sluice/protocol/common/uuid.js';
import { topicNameProblem } from '../metadata/topic-names.js';
import { endpointOn, type MetadataImage, type TopicImage } from '../metadata/metadata-image.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import {
  MetadataRequest,
  MetadataResponse,
  type MetadataResponseDataInput,
  type MetadataResponseMetadataResponseTopicInput,
} from '@sluice/protocol/messages/index.js';
import { defineHandler } from './handler.js';
import { clusterOf, type ClusterContext } from './cluster-context.js';
import { AclOperation, authorized, authorizedNames, authorizedOnCluster, authorizedOperations, ResourceType } from './authorization.js';
import { CLUSTER_NAME } from '../security/acl/index.js';
import { partitionStates, type PartitionState } from './topic-description.js';

type TopicResult = MetadataResponseMetadataResponseTopicInput;

/** Metadata v6 introduced LISTENER_NOT_FOUND; older clients hear LEADER_NOT_AVAILABLE. */
const LISTENER_NOT_FOUND_VERSION = 6;

/** Brokers and leaders as seen from the listener the request came in on. */
interface View {
  readonly image: MetadataImage;
  readonly listenerName: string;
  readonly version: number;
}

/** A leader registered without the request's listener cannot be reached by this client: Kafka answers LISTENER_NOT_FOUND. */
function onListener(p: PartitionState, view: View): PartitionState {
  if (p.leaderId < 0) return p;
  const leader = view.image.broker(p.leaderId);
  if (leader === undefined || endpointOn(leader, view.listenerName) !== undefined) return p;
  const errorCode = view.version >= LISTENER_NOT_FOUND_VERSION ? ErrorCode.LISTENER_NOT_FOUND : ErrorCode.LEADER_NOT_AVAILABLE;
  return { ...p, errorCode, leaderId: -1 };
}

function described(t: TopicImage, operations: number, view: View): TopicResult {
  return {
    errorCode: ErrorCode.NONE,
    name: t.name,
    topicId: t.topicId,
    isInternal: t.internal,
    partitions: partitionStates(t).map((p) => onListener(p, view)),
    topicAuthorizedOperations: operations,
  };
}

function failed(errorCode: number, name: string | null, topicId = ZERO_UUID): TopicResult {
  return { errorCode, name, topicId, isInternal: false, partitions: [] };
}

async function byName(
  c: ClusterContext,
  name: string,
  allowAutoCreate: boolean,
  mayCreate: (name: string) => boolean,
  operations: (name: string) => number,
  view: View,
): Promise<TopicResult> {
  const existing = c.metadata.topic(name);
  if (existing !== undefined) return described(existing, operations(name), view);
  if (topicNameProblem(name) !== null) return failed(ErrorCode.INVALID_TOPIC_EXCEPTION, name);
  if (!allowAutoCreate || !c.autoCreateTopicsEnable) return failed(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, name);
  // As Kafka: creating it needs CREATE on the cluster or on the topic.
  if (!mayCreate(name)) return failed(ErrorCode.TOPIC_AUTHORIZATION_FAILED, name);
  // A cluster member that has not yet had the controller's first UpdateMetadata knows no broker,
  // not even itself: the topic may well exist, so the client is asked to retry, not to fail on a
  // replication factor no empty view could satisfy.
  if (c.metadata.brokers().length === 0) return failed(ErrorCode.LEADER_NOT_AVAILABLE, name);
  const created = await c.admin.createTopic({ name, numPartitions: -1, replicationFactor: -1, assignments: [], configs: [] }, false);
  // Kafka's answer when another broker created it meanwhile, or the creation stands but has not
  // reached this broker yet: retriable, the next Metadata finds it.
  if (created.errorCode === ErrorCode.TOPIC_ALREADY_EXISTS || created.errorCode === ErrorCode.REQUEST_TIMED_OUT)
    return failed(ErrorCode.LEADER_NOT_AVAILABLE, name);
  if (created.topic === null) return failed(created.errorCode, name);
  return described(created.topic, operations(name), view);
}

export const metadataHandler = defineHandler({
  request: MetadataRequest,
  response: MetadataResponse,
  async handle(request, ctx): Promise<MetadataResponseDataInput> {
    const c = clusterOf(ctx);
    const version = ctx.header.requestApiVersion;
    const operations = (name: string): number =>
      authorizedOperations(ctx, request.includeTopicAuthorizedOperations, ResourceType.TOPIC, name);
    // Topics the principal may not DESCRIBE are left out of a listing and refused when named.
    const mayDescribe = authorizedNames(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC);
    const view: View = { image: c.metadata, listenerName: ctx.session.listenerName, version };
    let topics: TopicResult[];
    if (request.topics === null || (version === 0 && request.topics.length === 0)) {
      topics = c.metadata.topics().flatMap((t) => (mayDescribe(t.name) ? [described(t, operations(t.name), view)] : []));
    } else if (request.topics.some((t) => t.topicId !== ZERO_UUID)) {
      topics = request.topics
        .filter((t) => t.topicId !== ZERO_UUID)
        .map((t) => {
          const found = c.metadata.topicById(t.topicId);
          if (found === undefined) return failed(ErrorCode.UNKNOWN_TOPIC_ID, null, t.topicId);
          return mayDescribe(found.name)
            ? described(found, operations(found.name), view)
            : failed(ErrorCode.TOPIC_AUTHORIZATION_FAILED, null, t.topicId);
        });
    } else {
      const names = [...new Set(request.topics.map((t) => t.name ?? ''))];
      topics = [];
      const mayCreateAny = authorizedOnCluster(ctx, AclOperation.CREATE);
      const mayCreate = (name: string): boolean => mayCreateAny || authorized(ctx, AclOperation.CREATE, ResourceType.TOPIC, name);
      // As Kafka: the topics the principal may not DESCRIBE are answered after the others.
      for (const name of names.filter(mayDescribe))
        topics.push(await byName(c, name, request.allowAutoTopicCreation, mayCreate, operations, view));
      for (const name of names.filter((n) => !mayDescribe(n))) topics.push(failed(ErrorCode.TOPIC_AUTHORIZATION_FAILED, name));
    }
    const image = c.metadata;
    return {
      brokers: image.brokers().flatMap((b) => {
        const endpoint = endpointOn(b, ctx.session.listenerName);
        return endpoint === undefined ? [] : [{ nodeId: b.nodeId, host: endpoint.host, port: endpoint.port, rack: b.rack }];
      }),
      clusterId: image.clusterId,
      controllerId: image.controllerId,
      topics,
      clusterAuthorizedOperations: authorizedOperations(
        ctx,
        request.includeClusterAuthorizedOperations,
        ResourceType.CLUSTER,
        CLUSTER_NAME,
      ),
    };
  },
});
