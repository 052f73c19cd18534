/**
 * FindCoordinator (key 10): a group's coordinator is the leader of its `__consumer_offsets`
 * partition, a transactional id's the leader of its `__transaction_state` partition, a
 * share-partition's (key type 2, `groupId:topicId:partition`, v6+, asked by brokers with
 * CLUSTER_ACTION) the leader of its `__share_group_state` partition, as the metadata image names
 * them — one key in v0–3, a batch in v4+. Looking a key up also starts
 * loading its coordinator (creating the topic on first use), as Kafka does, so the request that
 * follows rarely waits. A partition without a live leader answers COORDINATOR_NOT_AVAILABLE.
 */
import { kafkaErrorCode } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import {
  FindCoordinatorRequest,
  FindCoordinatorResponse,
  type FindCoordinatorResponseCoordinatorInput,
} from '@sluice/protocol/messages/index.js';
import { endpointOn, type BrokerRegistration } from '../metadata/metadata-image.js';
import { CONSUMER_OFFSETS_TOPIC, SHARE_GROUP_STATE_TOPIC, TRANSACTION_STATE_TOPIC } from '../metadata/topic-names.js';
import { AclOperation, authorized, authorizedOnCluster, ResourceType } from './authorization.js';
import type { RequestContext } from './handler.js';
import { parseSharePartitionKey } from './share-partition-key.js';
import { clusterOf, type ClusterContext } from './cluster-context.js';
import { defineHandler } from './handler.js';

const GROUP_KEY_TYPE = 0;
const TRANSACTION_KEY_TYPE = 1;
const SHARE_KEY_TYPE = 2;
const BATCHED_VERSION = 4;
const SHARE_KEY_VERSION = 6;

/** What FindCoordinator needs of a kind of coordinator. */
interface CoordinatorKind {
  readonly topic: string;
  readonly what: string;
  /** Whether the requester may look the key up, and the answer when it may not. */
  mayFind(ctx: RequestContext, key: string): boolean;
  readonly refused: number;
  /** Why the key is malformed, or null. */
  problem(key: string): string | null;
  prepare(key: string): Promise<void>;
  partitionOf(key: string): number;
}

/** DESCRIBE on the key's own resource finds its coordinator. */
const describable =
  (resourceType: ResourceType) =>
  (ctx: RequestContext, key: string): boolean =>
    authorized(ctx, AclOperation.DESCRIBE, resourceType, key);
const anyKey = (): null => null;

function coordinatorKind(c: ClusterContext, keyType: number, version: number): CoordinatorKind | null {
  if (keyType === GROUP_KEY_TYPE)
    return {
      topic: CONSUMER_OFFSETS_TOPIC,
      what: 'group id',
      mayFind: describable(ResourceType.GROUP),
      refused: ErrorCode.GROUP_AUTHORIZATION_FAILED,
      problem: anyKey,
      prepare: (k) => c.groups.prepare(k),
      partitionOf: (k) => c.groups.partitionOf(k),
    };
  if (keyType === TRANSACTION_KEY_TYPE)
    return {
      topic: TRANSACTION_STATE_TOPIC,
      what: 'transactional id',
      mayFind: describable(ResourceType.TRANSACTIONAL_ID),
      refused: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED,
      problem: anyKey,
      prepare: (k) => c.transactions.prepare(k),
      partitionOf: (k) => c.transactions.partitionOf(k),
    };
  if (keyType === SHARE_KEY_TYPE && version >= SHARE_KEY_VERSION) {
    // Validated before `prepare` and `partitionOf` see it, so the parse there cannot fail.
    const keyOf = (k: string) => parseSharePartitionKey(k)!;
    return {
      topic: SHARE_GROUP_STATE_TOPIC,
      what: 'share-partition key',
      mayFind: (ctx) => authorizedOnCluster(ctx, AclOperation.CLUSTER_ACTION),
      refused: ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
      problem: (k) => (parseSharePartitionKey(k) === null ? `share-partition key ${k} is not groupId:topicId:partition` : null),
      prepare: (k) => c.shareCoordinator.prepare(keyOf(k)),
      partitionOf: (k) => c.shareCoordinator.partitionOf(keyOf(k)),
    };
  }
  return null;
}

export const findCoordinatorHandler = defineHandler({
  request: FindCoordinatorRequest,
  response: FindCoordinatorResponse,
  async handle(request, ctx) {
    const c = clusterOf(ctx);
    const keys = ctx.header.requestApiVersion >= BATCHED_VERSION ? request.coordinatorKeys : [request.key];
    const coordinators: FindCoordinatorResponseCoordinatorInput[] = await Promise.all(
      keys.map(async (key) => {
        const failed = (errorCode: number, errorMessage: string | null): FindCoordinatorResponseCoordinatorInput => ({
          key,
          nodeId: -1,
          host: '',
          port: -1,
          errorCode,
          errorMessage,
        });
        const found = (node: BrokerRegistration | undefined): FindCoordinatorResponseCoordinatorInput => {
          // A coordinator without the client's listener is as unreachable as none, as Kafka answers it.
          const endpoint = node === undefined ? undefined : endpointOn(node, ctx.session.listenerName);
          return endpoint === undefined
            ? failed(ErrorCode.COORDINATOR_NOT_AVAILABLE, null)
            : { key, nodeId: node!.nodeId, host: endpoint.host, port: endpoint.port, errorCode: ErrorCode.NONE, errorMessage: null };
        };
        const kind = coordinatorKind(c, request.keyType, ctx.header.requestApiVersion);
        if (kind === null) return failed(ErrorCode.INVALID_REQUEST, `unknown key type ${request.keyType}`);
        if (key === '') return failed(ErrorCode.INVALID_REQUEST, `empty ${kind.what}`);
        if (!kind.mayFind(ctx, key)) return failed(kind.refused, null);
        const problem = kind.problem(key);
        if (problem !== null) return failed(ErrorCode.INVALID_REQUEST, problem);
        try {
          await kind.prepare(key);
        } catch (err) {
          return failed(kafkaErrorCode(err), null);
        }
        const leader = c.metadata.partition(kind.topic, kind.partitionOf(key))?.leader;
        return found(leader === undefined ? undefined : c.metadata.broker(leader));
      }),
    );
    if (ctx.header.requestApiVersion >= BATCHED_VERSION) return { throttleTimeMs: 0, coordinators };
    const only = coordinators[0]!;
    return {
      throttleTimeMs: 0,
      errorCode: only.errorCode,
      errorMessage: only.errorMessage,
      nodeId: only.nodeId,
      host: only.host,
      port: only.port,
    };
  },
});
