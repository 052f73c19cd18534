/**
 * ElectLeaders (key 43): preferred or unclean leader election for the named partitions (all of
 * them when null). In a cluster it is the active controller's work, and another broker answers
 * NOT_CONTROLLER so that the client finds the controller. A single broker is every partition's
 * only and preferred replica: nothing to elect.
 */
import { ErrorCode } from '@sluice/protocol/errors.js';
import { groupBy } from '@sluice/protocol/common/group-by.js';
import { ElectLeadersRequest, ElectLeadersResponse, type ElectLeadersResponseDataInput } from '@sluice/protocol/messages/index.js';
import { ElectionType, type ElectionResult } from '../metadata/replica-control.js';
import type { MetadataImage } from '../metadata/metadata-image.js';
import { AclOperation, authorizedOnCluster } from './authorization.js';
import { clusterOf } from './cluster-context.js';
import { defineHandler } from './handler.js';

function localElection(
  image: MetadataImage,
  electionType: number,
  asked: readonly { topic: string; partition: number }[] | null,
): ElectionResult[] {
  const partitions = asked ?? image.topics().flatMap((t) => t.partitions.map((p) => ({ topic: t.name, partition: p.partition })));
  const results = partitions.map(({ topic, partition }): ElectionResult => {
    if (image.partition(topic, partition) === undefined)
      return {
        topic,
        partition,
        errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
        errorMessage: `The partition ${topic}-${partition} does not exist.`,
      };
    if (electionType !== ElectionType.PREFERRED && electionType !== ElectionType.UNCLEAN)
      return { topic, partition, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `Unknown election type ${electionType}` };
    return { topic, partition, errorCode: ErrorCode.ELECTION_NOT_NEEDED, errorMessage: 'Leader election not needed for topic partition.' };
  });
  return asked === null ? results.filter((r) => r.errorCode !== ErrorCode.ELECTION_NOT_NEEDED) : results;
}

export const electLeadersHandler = defineHandler({
  request: ElectLeadersRequest,
  response: ElectLeadersResponse,
  async handle(request, ctx): Promise<ElectLeadersResponseDataInput> {
    const c = clusterOf(ctx);
    if (!authorizedOnCluster(ctx, AclOperation.ALTER))
      return { throttleTimeMs: 0, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, replicaElectionResults: [] };
    // v0 has no election type: it always meant a preferred election.
    const electionType = ctx.header.requestApiVersion >= 1 ? request.electionType : ElectionType.PREFERRED;
    const asked =
      request.topicPartitions === null
        ? null
        : request.topicPartitions.flatMap((t) => t.partitions.map((partition) => ({ topic: t.topic, partition })));
    const { errorCode, results } =
      c.membership === null
        ? { errorCode: ErrorCode.NONE, results: localElection(c.metadata, electionType, asked) }
        : await c.membership.controller.electLeaders(electionType, asked);
    const byTopic = groupBy(
      results,
      (r) => r.topic,
      (r) => ({ partitionId: r.partition, errorCode: r.errorCode, errorMessage: r.errorMessage }),
    );
    return {
      throttleTimeMs: 0,
      errorCode,
      replicaElectionResults: [...byTopic].map(([topic, partitionResult]) => ({ topic, partitionResult })),
    };
  },
});
