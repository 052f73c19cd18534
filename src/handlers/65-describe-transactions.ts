/**
 * DescribeTransactions (key 65): the state of each transactional id this broker coordinates
 * (state, producer id and epoch, timeout, start time, partitions); an id coordinated elsewhere
 * answers NOT_COORDINATOR, as Kafka's admin client then asks its coordinator.
 */
import { DescribeTransactionsRequest, DescribeTransactionsResponse } from '../protocol/messages/index.js';
import { clusterOf } from './cluster-context.js';
import { defineHandler } from './handler.js';

export const describeTransactionsHandler = defineHandler({
  request: DescribeTransactionsRequest,
  response: DescribeTransactionsResponse,
  async handle(request, ctx) {
    const c = clusterOf(ctx);
    return { throttleTimeMs: 0, transactionStates: await c.transactions.describe(request.transactionalIds) };
  },
});
