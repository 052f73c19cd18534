/**
 * DeleteAcls (key 31): removes the ACLs each filter matches and answers, per filter, the
 * bindings it removed. Needs ALTER on the cluster; SECURITY_DISABLED without an authorizer. A
 * filter with UNKNOWN elements closes the connection, as Kafka 4.4 does (it cannot parse the
 * request).
 */
import { ErrorCode } from '@sluice/protocol/errors.js';
import {
  DeleteAclsRequest,
  DeleteAclsResponse,
  type DeleteAclsResponseDataInput,
  type DeleteAclsResponseDeleteAclsFilterResultInput,
} from '@sluice/protocol/messages/index.js';
import { AclOperation, filterIsUnknown } from '../security/acl/index.js';
import { aclApiRefusal, filterOf } from './acl-wire.js';
import { clusterOf } from './cluster-context.js';
import { CloseConnection, defineHandler } from './handler.js';

export const deleteAclsHandler = defineHandler({
  request: DeleteAclsRequest,
  response: DeleteAclsResponse,
  async handle(request, ctx): Promise<DeleteAclsResponseDataInput> {
    const filters = request.filters.map(filterOf);
    if (filters.some(filterIsUnknown)) throw new CloseConnection('DeleteAcls filter with UNKNOWN elements');
    const refused = aclApiRefusal(ctx, AclOperation.ALTER);
    if (refused !== null) return { throttleTimeMs: 0, filterResults: request.filters.map(() => ({ ...refused, matchingAcls: [] })) };
    const deleted = await clusterOf(ctx).acls.delete(filters);
    const results: DeleteAclsResponseDeleteAclsFilterResultInput[] = deleted.map((r) => ({
      errorCode: r.errorCode,
      errorMessage: r.errorMessage,
      matchingAcls: r.deleted.map(({ pattern, entry }) => ({
        errorCode: ErrorCode.NONE,
        errorMessage: null,
        resourceType: pattern.resourceType,
        resourceName: pattern.name,
        patternType: pattern.patternType,
        principal: entry.principal,
        host: entry.host,
        operation: entry.operation,
        permissionType: entry.permissionType,
      })),
    }));
    return { throttleTimeMs: 0, filterResults: results };
  },
});
