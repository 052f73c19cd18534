/**
 * CreateAcls (key 30): adds ACL bindings (an existing one is no error). Needs ALTER on the
 * cluster; SECURITY_DISABLED without an authorizer. Each creation is validated as Kafka 4.4 does
 * (`bindingRefusal`) and answered on its own; an UNKNOWN code closes the connection, as Kafka
 * cannot parse such a request.
 */
import { ErrorCode } from '@sluice/protocol/errors.js';
import {
  CreateAclsRequest,
  CreateAclsResponse,
  type CreateAclsResponseAclCreationResultInput,
  type CreateAclsResponseDataInput,
} from '@sluice/protocol/messages/index.js';
import { AclOperation, bindingIsUnknown, bindingRefusal, type AclBinding } from '../security/acl/index.js';
import { aclApiRefusal, bindingOf } from './acl-wire.js';
import { clusterOf } from './cluster-context.js';
import { CloseConnection, defineHandler } from './handler.js';

/** Kafka 4.4 answers a creation with an empty message, not a null one. */
const CREATED = { errorCode: ErrorCode.NONE, errorMessage: '' };

export const createAclsHandler = defineHandler({
  request: CreateAclsRequest,
  response: CreateAclsResponse,
  async handle(request, ctx): Promise<CreateAclsResponseDataInput> {
    const bindings = request.creations.map(bindingOf);
    if (bindings.some(bindingIsUnknown)) throw new CloseConnection('CreateAcls creation with UNKNOWN elements');
    const refused = aclApiRefusal(ctx, AclOperation.ALTER);
    if (refused !== null) return { throttleTimeMs: 0, results: request.creations.map(() => refused) };
    const results: CreateAclsResponseAclCreationResultInput[] = [];
    const valid: { binding: AclBinding; position: number }[] = [];
    for (const binding of bindings) {
      const refusal = bindingRefusal(binding);
      if (refusal === null) valid.push({ binding, position: results.length });
      results.push(refusal ?? CREATED);
    }
    const created = await clusterOf(ctx).acls.create(valid.map((v) => v.binding));
    created.forEach((r, i) => (results[valid[i]!.position] = r.errorCode === ErrorCode.NONE ? CREATED : r));
    return { throttleTimeMs: 0, results };
  },
});
