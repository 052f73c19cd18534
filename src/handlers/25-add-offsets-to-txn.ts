/**
 * AddOffsetsToTxn (key 25): adds the group's `__consumer_offsets` partition to the producer's
 * transaction, so that the offsets it then commits with TxnOffsetCommit end with the transaction.
 */
import { ErrorCode } from '@sluice/protocol/errors.js';
import { kafkaErrorCode } from '@sluice/protocol/common/kafka-error.js';
import { FIRST_PRODUCER_FENCED_VERSION, fencingErrorFor } from './producer-fenced.js';
import { AddOffsetsToTxnRequest, AddOffsetsToTxnResponse } from '@sluice/protocol/messages/index.js';
import { AclOperation, authorized, ResourceType } from './authorization.js';
import { clusterOf } from './cluster-context.js';
import { defineHandler } from './handler.js';

export const addOffsetsToTxnHandler = defineHandler({
  request: AddOffsetsToTxnRequest,
  response: AddOffsetsToTxnResponse,
  async handle(request, ctx) {
    const c = clusterOf(ctx);
    if (!authorized(ctx, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, request.transactionalId))
      return { throttleTimeMs: 0, errorCode: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED };
    if (!authorized(ctx, AclOperation.READ, ResourceType.GROUP, request.groupId))
      return { throttleTimeMs: 0, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED };
    try {
      const errorCode = await c.transactions.addOffsets({
        transactionalId: request.transactionalId,
        producerId: request.producerId,
        producerEpoch: request.producerEpoch,
        groupId: request.groupId,
      });
      return {
        throttleTimeMs: 0,
        errorCode: fencingErrorFor(errorCode, ctx.header.requestApiVersion, FIRST_PRODUCER_FENCED_VERSION.addOffsetsToTxn),
      };
    } catch (err) {
      return {
        throttleTimeMs: 0,
        errorCode: fencingErrorFor(kafkaErrorCode(err), ctx.header.requestApiVersion, FIRST_PRODUCER_FENCED_VERSION.addOffsetsToTxn),
      };
    }
  },
});
