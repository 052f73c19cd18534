/**
 * EndTxn (key 26): commits or aborts the producer's transaction. Answered once the coordinator has
 * durably decided (PrepareCommit/PrepareAbort); the markers follow. From v5 the producer runs
 * transaction version 2 (KIP-890 part 2): the coordinator bumps its epoch at the end of every
 * transaction and the answer carries the producer id and epoch to go on with.
 */
import { ErrorCode } from '@sluice/protocol/errors.js';
import { kafkaErrorCode } from '@sluice/protocol/common/kafka-error.js';
import { FIRST_PRODUCER_FENCED_VERSION, fencingErrorFor } from './producer-fenced.js';
import { EndTxnRequest, EndTxnResponse } from '@sluice/protocol/messages/index.js';
import { AclOperation, authorized, ResourceType } from './authorization.js';
import { clusterOf } from './cluster-context.js';
import { defineHandler } from './handler.js';

const FIRST_TV2_VERSION = 5;

export const endTxnHandler = defineHandler({
  request: EndTxnRequest,
  response: EndTxnResponse,
  async handle(request, ctx) {
    const c = clusterOf(ctx);
    if (!authorized(ctx, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, request.transactionalId)) {
      return { throttleTimeMs: 0, errorCode: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, producerId: -1n, producerEpoch: -1 };
    }
    try {
      const answer = await c.transactions.endTxn({
        transactionalId: request.transactionalId,
        producerId: request.producerId,
        producerEpoch: request.producerEpoch,
        commit: request.committed,
        clientTransactionVersion: ctx.header.requestApiVersion >= FIRST_TV2_VERSION ? 2 : 0,
      });
      return {
        throttleTimeMs: 0,
        ...answer,
        errorCode: fencingErrorFor(answer.errorCode, ctx.header.requestApiVersion, FIRST_PRODUCER_FENCED_VERSION.endTxn),
      };
    } catch (err) {
      return {
        throttleTimeMs: 0,
        errorCode: fencingErrorFor(kafkaErrorCode(err), ctx.header.requestApiVersion, FIRST_PRODUCER_FENCED_VERSION.endTxn),
        producerId: -1n,
        producerEpoch: -1,
      };
    }
  },
});
