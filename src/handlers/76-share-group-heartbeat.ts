/**
 * ShareGroupHeartbeat (key 76, KIP-932): join, heartbeat and leave of share groups. As Kafka's
 * KafkaApis: READ on the group, and DESCRIBE on every subscribed topic.
 */
import { ErrorCode } from '@sluice/protocol/errors.js';
import { kafkaErrorCode } from '@sluice/protocol/common/kafka-error.js';
import { ShareGroupHeartbeatRequest, ShareGroupHeartbeatResponse } from '@sluice/protocol/messages/index.js';
import { AclOperation, authorized, authorizedNames, ResourceType } from './authorization.js';
import { clusterOf } from './cluster-context.js';
import { shareGroupsEnabled } from '../metadata/features.js';
import { clientHostOf } from './group-errors.js';
import { defineHandler } from './handler.js';

export const shareGroupHeartbeatHandler = defineHandler({
  request: ShareGroupHeartbeatRequest,
  response: ShareGroupHeartbeatResponse,
  async handle(request, ctx) {
    const c = clusterOf(ctx);
    const refused = (errorCode: number) => ({
      throttleTimeMs: 0,
      errorCode,
      errorMessage: null,
      memberId: null,
      memberEpoch: 0,
      heartbeatIntervalMs: 0,
    });
    // As Kafka, before authorization: share groups are off while `share.version` is 0.
    if (!shareGroupsEnabled(c.metadata.features)) return refused(ErrorCode.UNSUPPORTED_VERSION);
    if (!authorized(ctx, AclOperation.READ, ResourceType.GROUP, request.groupId)) return refused(ErrorCode.GROUP_AUTHORIZATION_FAILED);
    const mayDescribe = authorizedNames(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC);
    if (request.subscribedTopicNames !== null && !request.subscribedTopicNames.every(mayDescribe))
      return refused(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
    try {
      const client = { clientId: ctx.header.clientId ?? '', clientHost: clientHostOf(ctx.session.clientAddress) };
      return { throttleTimeMs: 0, ...(await c.groups.share.heartbeat(request, client, c.metadata)) };
    } catch (err) {
      return refused(kafkaErrorCode(err));
    }
  },
});
