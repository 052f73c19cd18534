/** ListGroups (key 16): every group this broker coordinates, filtered by state (v4+) and type (v5+). */
import { kafkaErrorCode } from '@sluice/protocol/common/kafka-error.js';
import { ListGroupsRequest, ListGroupsResponse } from '@sluice/protocol/messages/index.js';
import { AclOperation, authorizedNames, authorizedOnCluster, ResourceType } from './authorization.js';
import { clusterOf } from './cluster-context.js';
import { defineHandler } from './handler.js';

export const listGroupsHandler = defineHandler({
  request: ListGroupsRequest,
  response: ListGroupsResponse,
  async handle(request, ctx) {
    const c = clusterOf(ctx);
    const version = ctx.header.requestApiVersion;
    try {
      const response = await c.groups.listGroups(request);
      // Group states are carried from v4 and group types from v5; older versions keep the defaults.
      // As Kafka: DESCRIBE on the cluster lists every group, otherwise those the principal may DESCRIBE.
      const mayDescribe = authorizedOnCluster(ctx, AclOperation.DESCRIBE)
        ? () => true
        : authorizedNames(ctx, AclOperation.DESCRIBE, ResourceType.GROUP);
      const groups = (response.groups ?? [])
        .filter((g) => mayDescribe(g.groupId ?? ''))
        .map((g) => ({
          groupId: g.groupId,
          protocolType: g.protocolType,
          groupState: version >= 4 ? g.groupState : '',
          groupType: version >= 5 ? g.groupType : '',
        }));
      return { throttleTimeMs: 0, errorCode: response.errorCode, groups };
    } catch (err) {
      return { throttleTimeMs: 0, errorCode: kafkaErrorCode(err), groups: [] };
    }
  },
});
