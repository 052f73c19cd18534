/**
 * What ShareFetch and ShareAcknowledge share: finding each named partition (its topic by id, READ
 * authorized on the topic, led here), applying a member's acknowledgements to it, and the leader
 * hints (KIP-951) of the partitions that moved.
 */
import { kafkaErrorCode } from '@sluice/protocol/common/kafka-error.js';
import type { TopicImage } from '../metadata/metadata-image.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import type { AcknowledgementBatch } from '../coordinator/share/partition/share-partition.js';
import type { SharePartitionManager } from '../coordinator/share/partition/share-partition-manager.js';
import { AclOperation, authorized, authorizedNames, ResourceType } from './authorization.js';
import { clusterOf, type ClusterContext } from './cluster-context.js';
import { shareGroupsEnabled } from '../metadata/features.js';
import type { RequestContext } from './handler.js';
import { LeaderHints, type LeaderHint, type NodeEndpoint } from './leader-hints.js';
import { sharesOf, type ShareServices } from './share-services.js';

/** A partition a share request names, once found: its topic, or the error it is answered with. */
export type FoundPartition =
  | { readonly topic: TopicImage; readonly leaderEpoch: number; readonly errorCode: typeof ErrorCode.NONE }
  | { readonly topic: TopicImage | undefined; readonly errorCode: number };

/**
 * Finds a partition as Kafka's share handlers do: an unknown topic id is UNKNOWN_TOPIC_ID, a topic
 * without READ is TOPIC_AUTHORIZATION_FAILED, a partition this broker does not lead is
 * NOT_LEADER_OR_FOLLOWER.
 */
export function partitionFinder(ctx: RequestContext, c: ClusterContext): (topicId: string, partition: number) => FoundPartition {
  const mayRead = authorizedNames(ctx, AclOperation.READ, ResourceType.TOPIC);
  return (topicId, partition) => {
    const topic = c.metadata.topicById(topicId);
    if (topic === undefined) return { topic, errorCode: ErrorCode.UNKNOWN_TOPIC_ID };
    if (!mayRead(topic.name)) return { topic, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED };
    const p = c.metadata.partition(topic.name, partition);
    if (p === undefined) return { topic, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION };
    if (p.leader !== c.nodeId) return { topic, errorCode: ErrorCode.NOT_LEADER_OR_FOLLOWER };
    return { topic, leaderEpoch: p.leaderEpoch, errorCode: ErrorCode.NONE };
  };
}

/** A share request admitted: its cluster, the share services, and the group and member it names. */
export interface AdmittedShareRequest {
  readonly c: ClusterContext;
  readonly shares: ShareServices;
  readonly groupId: string;
  readonly memberId: string;
}

/**
 * What ShareFetch and ShareAcknowledge check first, in Kafka's order: share groups on
 * (`share.version`), READ on the group, then a named group and member. A refusal is the
 * top-level error code and message to answer.
 */
export function admitShareRequest(
  ctx: RequestContext,
  request: { readonly groupId: string | null; readonly memberId: string | null },
  what: string,
): AdmittedShareRequest | { readonly refused: number; readonly message: string | null } {
  const c = clusterOf(ctx);
  if (!shareGroupsEnabled(c.metadata.features)) return { refused: ErrorCode.UNSUPPORTED_VERSION, message: null };
  const shares = sharesOf(c);
  const groupId = request.groupId ?? '';
  const memberId = request.memberId ?? '';
  if (!authorized(ctx, AclOperation.READ, ResourceType.GROUP, groupId))
    return { refused: ErrorCode.GROUP_AUTHORIZATION_FAILED, message: null };
  if (groupId === '' || memberId === '') return { refused: ErrorCode.INVALID_REQUEST, message: `a ${what} names its group and member` };
  return { c, shares, groupId, memberId };
}

/**
 * Applies `batches` of `memberId` to the share partition of (group, topic, partition) and answers
 * the acknowledgement's error code: INVALID_RECORD_STATE when no share partition is open here
 * (nothing can have been acquired from it), else what the share partition answers.
 */
export async function acknowledgePartition(
  manager: SharePartitionManager,
  groupId: string,
  memberId: string,
  topicId: string,
  partition: number,
  batches: readonly AcknowledgementBatch[],
  renewAllowed: boolean,
): Promise<number> {
  const sp = await manager.find({ groupId, topicId, partition });
  if (sp === undefined) return ErrorCode.INVALID_RECORD_STATE;
  try {
    await sp.acknowledge(memberId, batches, renewAllowed);
    return ErrorCode.NONE;
  } catch (err) {
    return kafkaErrorCode(err);
  }
}

/** Kafka 4.4 leaves the hint at the schema's zero defaults (not -1, as Fetch's defaults are). */
const NO_HINT: LeaderHint = { leaderId: 0, leaderEpoch: 0 };

/** The current leaders of partitions answered NOT_LEADER_OR_FOLLOWER or FENCED_LEADER_EPOCH, and their endpoints. */
export class ShareLeaderHints {
  private readonly hints: LeaderHints;

  constructor(c: ClusterContext, ctx: RequestContext) {
    this.hints = new LeaderHints(c.metadata, ctx.session.listenerName);
  }

  /** Kafka answers 0/0 unless the error calls for a hint. */
  leader(errorCode: number, topic: TopicImage | undefined, partition: number): LeaderHint {
    return (topic === undefined ? null : this.hints.hint(errorCode, topic.name, partition)) ?? NO_HINT;
  }

  endpoints(): NodeEndpoint[] {
    return this.hints.endpoints();
  }
}
