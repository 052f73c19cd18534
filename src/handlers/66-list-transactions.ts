/**
 * ListTransactions (key 66): the transactional ids of every transaction coordinator on this
 * broker, filtered by state, producer id and (v1+) how long the transaction has been running.
 */
import { ListTransactionsRequest, ListTransactionsResponse } from '@sluice/protocol/messages/index.js';
import { AclOperation, authorizedNames, ResourceType } from './authorization.js';
import { clusterOf } from './cluster-context.js';
import { defineHandler } from './handler.js';

export const listTransactionsHandler = defineHandler({
  request: ListTransactionsRequest,
  response: ListTransactionsResponse,
  async handle(request, ctx) {
    const c = clusterOf(ctx);
    const listed = await c.transactions.list(request);
    const mayDescribe = authorizedNames(ctx, AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID);
    return {
      throttleTimeMs: 0,
      ...listed,
      transactionStates: (listed.transactionStates ?? []).filter((t) => mayDescribe(t.transactionalId ?? '')),
    };
  },
});
