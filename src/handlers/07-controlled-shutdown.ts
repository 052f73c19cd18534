/**
 * ControlledShutdown (key 7): a broker about to stop asks the controller to move its leaderships
 * away first. Served by the active controller; any other broker answers NOT_CONTROLLER and the
 * asking broker finds the controller again.
 */
import { ErrorCode } from '@sluice/protocol/errors.js';
import {
  ControlledShutdownRequest,
  ControlledShutdownResponse,
  type ControlledShutdownResponseDataInput,
} from '@sluice/protocol/messages/index.js';
import { AclOperation, authorizedOnCluster } from './authorization.js';
import { clusterOf, membershipOf } from './cluster-context.js';
import { defineHandler } from './handler.js';

export const controlledShutdownHandler = defineHandler({
  request: ControlledShutdownRequest,
  response: ControlledShutdownResponse,
  async handle(request, ctx): Promise<ControlledShutdownResponseDataInput> {
    if (!authorizedOnCluster(ctx, AclOperation.CLUSTER_ACTION))
      return { errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, remainingPartitions: [] };
    const member = membershipOf(clusterOf(ctx));
    const { errorCode, remaining } = await member.controller.controlledShutdown(request.brokerId, request.brokerEpoch);
    return { errorCode, remainingPartitions: remaining.map((p) => ({ topicName: p.topic, partitionIndex: p.partition })) };
  },
});
