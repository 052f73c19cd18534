/**
 * AlterPartitionReassignments (key 45, KIP-455): moves partitions to new replica sets, or
 * cancels a move in progress (null replicas). In a cluster it is the active controller's work;
 * another broker answers NOT_CONTROLLER so the client finds the controller. A single broker can
 * only "move" a partition onto itself, which is already where it is.
 */
import { ErrorCode } from '@sluice/protocol/errors.js';
import { groupBy } from '@sluice/protocol/common/group-by.js';
import {
  AlterPartitionReassignmentsRequest,
  AlterPartitionReassignmentsResponse,
  type AlterPartitionReassignmentsResponseDataInput,
} from '@sluice/protocol/messages/index.js';
import type { ElectionResult, ReassignmentRequest } from '../metadata/replica-control.js';
import type { MetadataImage } from '../metadata/metadata-image.js';
import { AclOperation, authorizedOnCluster } from './authorization.js';
import { clusterOf } from './cluster-context.js';
import { defineHandler } from './handler.js';

function localReassignment(image: MetadataImage, nodeId: number, items: readonly ReassignmentRequest[]): ElectionResult[] {
  return items.map(({ topic, partition, target }): ElectionResult => {
    const at = { topic, partition };
    if (image.partition(topic, partition) === undefined)
      return {
        ...at,
        errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
        errorMessage: `The partition ${topic}-${partition} does not exist.`,
      };
    if (target === null)
      return {
        ...at,
        errorCode: ErrorCode.NO_REASSIGNMENT_IN_PROGRESS,
        errorMessage: `No reassignment in progress for ${topic}-${partition}.`,
      };
    if (target.length !== 1 || target[0] !== nodeId)
      return {
        ...at,
        errorCode: ErrorCode.INVALID_REPLICA_ASSIGNMENT,
        errorMessage: `The proposed assignment contains non-live brokers: ${target.filter((id) => id !== nodeId).join(', ')}.`,
      };
    return { ...at, errorCode: ErrorCode.NONE, errorMessage: null };
  });
}

export const alterPartitionReassignmentsHandler = defineHandler({
  request: AlterPartitionReassignmentsRequest,
  response: AlterPartitionReassignmentsResponse,
  async handle(request, ctx): Promise<AlterPartitionReassignmentsResponseDataInput> {
    const c = clusterOf(ctx);
    if (!authorizedOnCluster(ctx, AclOperation.ALTER))
      return { throttleTimeMs: 0, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, errorMessage: null, responses: [] };
    const items: ReassignmentRequest[] = request.topics.flatMap((t) =>
      t.partitions.map((p) => ({ topic: t.name, partition: p.partitionIndex, target: p.replicas })),
    );
    const results =
      c.membership === null ? localReassignment(c.metadata, c.nodeId, items) : await c.membership.controller.alterReassignments(items);
    const notController = results.length > 0 && results.every((r) => r.errorCode === ErrorCode.NOT_CONTROLLER);
    const byTopic = groupBy(
      results,
      (r) => r.topic,
      (r) => ({ partitionIndex: r.partition, errorCode: r.errorCode, errorMessage: r.errorMessage }),
    );
    return {
      throttleTimeMs: 0,
      errorCode: notController ? ErrorCode.NOT_CONTROLLER : ErrorCode.NONE,
      errorMessage: null,
      ...(ctx.header.requestApiVersion >= 1 ? { allowReplicationFactorChange: request.allowReplicationFactorChange } : {}),
      responses: notController ? [] : [...byTopic].map(([name, partitions]) => ({ name, partitions })),
    };
  },
});
