/**
 * ListPartitionReassignments (key 46, KIP-455): the reassignments in progress, with each
 * partition's current replicas and those being added and removed. The active controller's
 * answer; another broker answers NOT_CONTROLLER. A single broker never has one.
 */
import { ErrorCode } from '@sluice/protocol/errors.js';
import { groupBy } from '@sluice/protocol/common/group-by.js';
import {
  ListPartitionReassignmentsRequest,
  ListPartitionReassignmentsResponse,
  type ListPartitionReassignmentsResponseDataInput,
} from '@sluice/protocol/messages/index.js';
import type { ReassignmentState } from '../metadata/replica-control.js';
import { AclOperation, authorizedOnCluster } from './authorization.js';
import { clusterOf } from './cluster-context.js';
import { defineHandler } from './handler.js';

export const listPartitionReassignmentsHandler = defineHandler({
  request: ListPartitionReassignmentsRequest,
  response: ListPartitionReassignmentsResponse,
  async handle(request, ctx): Promise<ListPartitionReassignmentsResponseDataInput> {
    const c = clusterOf(ctx);
    if (!authorizedOnCluster(ctx, AclOperation.DESCRIBE))
      return { throttleTimeMs: 0, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, errorMessage: null, topics: [] };
    const asked =
      request.topics === null ? null : request.topics.flatMap((t) => t.partitionIndexes.map((partition) => ({ topic: t.name, partition })));
    const { errorCode, reassignments } =
      c.membership === null
        ? { errorCode: ErrorCode.NONE, reassignments: [] as ReassignmentState[] }
        : await c.membership.controller.listReassignments(asked);
    const byTopic = groupBy(
      reassignments,
      (r) => r.topic,
      (r) => ({ partitionIndex: r.partition, replicas: [...r.replicas], addingReplicas: [...r.adding], removingReplicas: [...r.removing] }),
    );
    return { throttleTimeMs: 0, errorCode, errorMessage: null, topics: [...byTopic].map(([name, partitions]) => ({ name, partitions })) };
  },
});
