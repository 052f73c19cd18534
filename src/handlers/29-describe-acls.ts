/**
 * DescribeAcls (key 29): the ACLs a filter matches, grouped by resource pattern. Needs DESCRIBE
 * on the cluster; SECURITY_DISABLED without an authorizer. A filter with UNKNOWN elements closes
 * the connection, as Kafka 4.4 does (it cannot parse the request).
 */
import { ErrorCode } from '@sluice/protocol/errors.js';
import {
  DescribeAclsRequest,
  DescribeAclsResponse,
  type DescribeAclsResponseDataInput,
  type DescribeAclsResponseDescribeAclsResourceInput,
} from '@sluice/protocol/messages/index.js';
import { AclOperation, filterIsUnknown, patternKey } from '../security/acl/index.js';
import { aclApiRefusal, filterOf } from './acl-wire.js';
import { clusterOf } from './cluster-context.js';
import { CloseConnection, defineHandler } from './handler.js';

export const describeAclsHandler = defineHandler({
  request: DescribeAclsRequest,
  response: DescribeAclsResponse,
  handle(request, ctx): DescribeAclsResponseDataInput {
    const filter = filterOf(request);
    if (filterIsUnknown(filter)) throw new CloseConnection('DescribeAcls filter with UNKNOWN elements');
    const refused = aclApiRefusal(ctx, AclOperation.DESCRIBE);
    if (refused !== null) return { throttleTimeMs: 0, ...refused, resources: [] };
    const resources = new Map<
      string,
      DescribeAclsResponseDescribeAclsResourceInput & { acls: NonNullable<DescribeAclsResponseDescribeAclsResourceInput['acls']> }
    >();
    for (const { pattern, entry } of clusterOf(ctx).acls.current.matching(filter)) {
      const key = patternKey(pattern);
      let resource = resources.get(key);
      if (resource === undefined) {
        resource = { resourceType: pattern.resourceType, resourceName: pattern.name, patternType: pattern.patternType, acls: [] };
        resources.set(key, resource);
      }
      resource.acls.push({
        principal: entry.principal,
        host: entry.host,
        operation: entry.operation,
        permissionType: entry.permissionType,
      });
    }
    // Kafka 4.4 answers success with an empty message, not a null one.
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: '', resources: [...resources.values()] };
  },
});
