/**
 * CreateAcls (key 30): adds ACL bindings (an existing one is no error). Needs ALTER on the
 * cluster; SECURITY_DISABLED without an authorizer. Each creation is validated as Kafka does
 * (concrete types, LITERAL or PREFIXED, the cluster named `kafka-cluster`, a parseable principal)
 * and answered on its own.
 */
import { ErrorCode } from '../protocol/errors.js';
import { CreateAclsRequest, CreateAclsResponse, type CreateAclsResponseAclCreationResultInput, type CreateAclsResponseDataInput } from '../protocol/messages/index.js';
import { AclOperation, bindingProblem, type AclBinding } from '../security/acl/index.js';
import { aclApiRefusal, bindingOf } from './acl-wire.js';
import { clusterOf } from './cluster-context.js';
import { defineHandler } from './handler.js';

export const createAclsHandler = defineHandler({
  request: CreateAclsRequest,
  response: CreateAclsResponse,
  async handle(request, ctx): Promise<CreateAclsResponseDataInput> {
    const refused = aclApiRefusal(ctx, AclOperation.ALTER);
    if (refused !== null) return { throttleTimeMs: 0, results: request.creations.map(() => refused) };
    const results: CreateAclsResponseAclCreationResultInput[] = [];
    const valid: { binding: AclBinding; position: number }[] = [];
    for (const creation of request.creations) {
      const binding = bindingOf(creation);
      const problem = bindingProblem(binding);
      if (problem === null) valid.push({ binding, position: results.length });
      results.push(problem === null ? { errorCode: ErrorCode.NONE, errorMessage: null } : { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: problem });
    }
    const created = await clusterOf(ctx).acls.create(valid.map((v) => v.binding));
    created.forEach((r, i) => (results[valid[i]!.position] = r));
    return { throttleTimeMs: 0, results };
  },
});
