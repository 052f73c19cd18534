/**
 * DeleteAcls (key 31): removes the ACLs each filter matches and answers, per filter, the
 * bindings it removed. Needs ALTER on the cluster; SECURITY_DISABLED without an authorizer;
 * INVALID_REQUEST for a filter with UNKNOWN elements.
 */
import { ErrorCode } from '../protocol/errors.js';
import { DeleteAclsRequest, DeleteAclsResponse, type DeleteAclsResponseDataInput, type DeleteAclsResponseDeleteAclsFilterResultInput } from '../protocol/messages/index.js';
import { AclOperation, filterProblem, type AclBindingFilter } from '../security/acl/index.js';
import { aclApiRefusal, filterOf } from './acl-wire.js';
import { clusterOf } from './cluster-context.js';
import { defineHandler } from './handler.js';

export const deleteAclsHandler = defineHandler({
  request: DeleteAclsRequest,
  response: DeleteAclsResponse,
  async handle(request, ctx): Promise<DeleteAclsResponseDataInput> {
    const refused = aclApiRefusal(ctx, AclOperation.ALTER);
    if (refused !== null) return { throttleTimeMs: 0, filterResults: request.filters.map(() => ({ ...refused, matchingAcls: [] })) };
    const results: DeleteAclsResponseDeleteAclsFilterResultInput[] = [];
    const valid: { filter: AclBindingFilter; position: number }[] = [];
    for (const f of request.filters) {
      const filter = filterOf(f);
      const problem = filterProblem(filter);
      if (problem === null) valid.push({ filter, position: results.length });
      results.push({ errorCode: problem === null ? ErrorCode.NONE : ErrorCode.INVALID_REQUEST, errorMessage: problem, matchingAcls: [] });
    }
    const deleted = await clusterOf(ctx).acls.delete(valid.map((v) => v.filter));
    deleted.forEach((r, i) => {
      results[valid[i]!.position] = {
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
      };
    });
    return { throttleTimeMs: 0, filterResults: results };
  },
});
