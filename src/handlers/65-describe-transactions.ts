/**
 * DescribeTransactions (key 65): the state of each transactional id this broker coordinates
 * (state, producer id and epoch, timeout, start time, partitions); an id coordinated elsewhere
 * answers NOT_COORDINATOR, as Kafka's admin client then asks its coordinator.
 */
import { ErrorCode } from '@sluice/protocol/errors.js';
import { DescribeTransactionsRequest, DescribeTransactionsResponse } from '@sluice/protocol/messages/index.js';
import { AclOperation, authorizedNames, ResourceType } from './authorization.js';
import { clusterOf } from './cluster-context.js';
import { defineHandler } from './handler.js';

export const describeTransactionsHandler = defineHandler({
  request: DescribeTransactionsRequest,
  response: DescribeTransactionsResponse,
  async handle(request, ctx) {
    const c = clusterOf(ctx);
    const mayDescribe = authorizedNames(ctx, AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID);
    const denied = request.transactionalIds
      .filter((id) => !mayDescribe(id))
      .map((transactionalId) => ({ transactionalId, errorCode: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED }));
    const described = await c.transactions.describe(request.transactionalIds.filter(mayDescribe));
    return { throttleTimeMs: 0, transactionStates: [...described, ...denied] };
  },
});
