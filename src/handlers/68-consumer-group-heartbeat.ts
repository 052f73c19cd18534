/**
 * ConsumerGroupHeartbeat (key 68, KIP-848): join, heartbeat and leave of consumer-protocol groups.
 * The coordinator gets the cluster's topics so every heartbeat sees topics appear and grow.
 */
import { ErrorCode } from '@sluice/protocol/errors.js';
import { kafkaErrorCode } from '@sluice/protocol/common/kafka-error.js';
import { ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse } from '@sluice/protocol/messages/index.js';
import { AclOperation, authorized, authorizedNames, ResourceType } from './authorization.js';
import { clusterOf } from './cluster-context.js';
import { consumerGroupProtocolEnabled } from '../metadata/features.js';
import { clientHostOf } from './group-errors.js';
import { defineHandler } from './handler.js';

export const consumerGroupHeartbeatHandler = defineHandler({
  request: ConsumerGroupHeartbeatRequest,
  response: ConsumerGroupHeartbeatResponse,
  async handle(request, ctx) {
    const c = clusterOf(ctx);
    const refused = (errorCode: number) => ({ throttleTimeMs: 0, errorCode, memberId: null, memberEpoch: 0, heartbeatIntervalMs: 0 });
    // As Kafka, before authorization: the protocol is off while `group.version` is below 1.
    if (!consumerGroupProtocolEnabled(c.metadata.features)) return refused(ErrorCode.UNSUPPORTED_VERSION);
    if (!authorized(ctx, AclOperation.READ, ResourceType.GROUP, request.groupId)) return refused(ErrorCode.GROUP_AUTHORIZATION_FAILED);
    // As Kafka 4: subscribing to a topic name needs DESCRIBE on it.
    const mayDescribe = authorizedNames(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC);
    if (request.subscribedTopicNames !== null && !request.subscribedTopicNames.every(mayDescribe))
      return refused(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
    try {
      const response = await c.groups.run(request.groupId, (coordinator, now) =>
        coordinator.consumerGroupHeartbeat(request, {
          apiVersion: ctx.header.requestApiVersion,
          clientId: ctx.header.clientId ?? '',
          clientHost: clientHostOf(ctx.session.clientAddress),
          now,
          topics: c.metadata,
        }),
      );
      return { throttleTimeMs: 0, ...response };
    } catch (err) {
      return { throttleTimeMs: 0, errorCode: kafkaErrorCode(err), memberId: null, memberEpoch: 0, heartbeatIntervalMs: 0 };
    }
  },
});
