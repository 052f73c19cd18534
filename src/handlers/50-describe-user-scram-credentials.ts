/**
 * DescribeUserScramCredentials (key 50, KIP-554): the mechanisms and iterations of users' SCRAM
 * credentials, never the keys. No users (null or empty) means every user with a credential; a
 * user named twice is DUPLICATE_RESOURCE and one without credentials RESOURCE_NOT_FOUND, with
 * Kafka 4.4's messages.
 */
import { ErrorCode } from '@sluice/protocol/errors.js';
import { DescribeUserScramCredentialsRequest, DescribeUserScramCredentialsResponse } from '@sluice/protocol/messages/index.js';
import { clusterOf } from './cluster-context.js';
import { defineHandler } from './handler.js';
import { AclOperation, authorizedOnCluster } from './authorization.js';
import { userCredentials, usersWithCredentials } from './scram-credentials.js';

export const describeUserScramCredentialsHandler = defineHandler({
  request: DescribeUserScramCredentialsRequest,
  response: DescribeUserScramCredentialsResponse,
  handle(request, ctx) {
    if (!authorizedOnCluster(ctx, AclOperation.DESCRIBE)) {
      return { throttleTimeMs: 0, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, errorMessage: null, results: [] };
    }
    const store = clusterOf(ctx).clientEntities;
    const named = request.users ?? [];
    const users = named.length === 0 ? usersWithCredentials(store) : named.map((u) => u.name);
    const duplicated = new Set(users.filter((u, i) => users.indexOf(u) !== i));
    const results = [...new Set(users)].map((user) => {
      if (duplicated.has(user)) {
        return {
          user,
          errorCode: ErrorCode.DUPLICATE_RESOURCE,
          errorMessage: `Cannot describe SCRAM credentials for the same user twice in a single request: ${user}`,
          credentialInfos: [],
        };
      }
      const credentials = userCredentials(store, user);
      if (credentials.length === 0) {
        return {
          user,
          errorCode: ErrorCode.RESOURCE_NOT_FOUND,
          errorMessage: `Attempt to describe a user credential that does not exist: ${user}`,
          credentialInfos: [],
        };
      }
      return {
        user,
        errorCode: ErrorCode.NONE,
        errorMessage: null,
        credentialInfos: credentials.map((c) => ({ mechanism: c.mechanism.wireType, iterations: c.credential.iterations })),
      };
    });
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, results };
  },
});
