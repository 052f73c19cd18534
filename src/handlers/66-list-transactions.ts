/**
 * ListTransactions (key 66): the transactional ids of every transaction coordinator on this
 * broker, filtered by state, producer id and (v1+) how long the transaction has been running.
 */
import { ListTransactionsRequest, ListTransactionsResponse } from '../protocol/messages/index.js';
import { clusterOf } from './cluster-context.js';
import { defineHandler } from './handler.js';

export const listTransactionsHandler = defineHandler({
  request: ListTransactionsRequest,
  response: ListTransactionsResponse,
  async handle(request, ctx) {
    const c = clusterOf(ctx);
    return { throttleTimeMs: 0, ...(await c.transactions.list(request)) };
  },
});
