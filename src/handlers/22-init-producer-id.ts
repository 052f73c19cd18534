/**
 * InitProducerId (key 22): gives an idempotent producer a fresh producer id at epoch 0. As in
 * Kafka, a request without a transactional id always gets a new id (even when it names its old
 * one to bump the epoch). Transactional producers are refused until transactions exist.
 */
import { ErrorCode } from '../protocol/errors.js';
import { InitProducerIdRequest, InitProducerIdResponse } from '../protocol/messages/index.js';
import { clusterOf } from './cluster-context.js';
import { defineHandler } from './handler.js';

export const initProducerIdHandler = defineHandler({
  request: InitProducerIdRequest,
  response: InitProducerIdResponse,
  async handle(request, ctx) {
    const c = clusterOf(ctx);
    if (request.transactionalId !== null) {
      return { throttleTimeMs: 0, errorCode: ErrorCode.INVALID_TXN_STATE, producerId: -1n, producerEpoch: -1 };
    }
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, producerId: await c.producerIds.nextProducerId(), producerEpoch: 0 };
  },
});
