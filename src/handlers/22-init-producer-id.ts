/**
 * InitProducerId (key 22). Without a transactional id: an idempotent producer gets a fresh
 * producer id at epoch 0 (as in Kafka, even when it names its old one to bump the epoch). With one:
 * the transaction coordinator of that id answers — a new id, or the id's producer at the next
 * epoch, which fences every older instance of it (KIP-98, KIP-360).
 */
import { kafkaErrorCode } from '@sluice/protocol/common/kafka-error.js';
import { FIRST_PRODUCER_FENCED_VERSION, fencingErrorFor } from './producer-fenced.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { InitProducerIdRequest, InitProducerIdResponse } from '@sluice/protocol/messages/index.js';
import { AclOperation, authorized, authorizedOnCluster, authorizedOnSomeResource, ResourceType } from './authorization.js';
import { clusterOf } from './cluster-context.js';
import { defineHandler } from './handler.js';

export const initProducerIdHandler = defineHandler({
  request: InitProducerIdRequest,
  response: InitProducerIdResponse,
  async handle(request, ctx) {
    const c = clusterOf(ctx);
    const refused = (errorCode: number) => ({
      throttleTimeMs: 0,
      errorCode: fencingErrorFor(errorCode, ctx.header.requestApiVersion, FIRST_PRODUCER_FENCED_VERSION.initProducerId),
      producerId: -1n,
      producerEpoch: -1,
    });
    if (request.transactionalId === null) {
      // As Kafka: an idempotent producer needs IDEMPOTENT_WRITE on the cluster or WRITE on some topic.
      if (
        !authorizedOnCluster(ctx, AclOperation.IDEMPOTENT_WRITE) &&
        !authorizedOnSomeResource(ctx, AclOperation.WRITE, ResourceType.TOPIC)
      ) {
        return refused(ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
      }
      return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, producerId: await c.producerIds.nextProducerId(), producerEpoch: 0 };
    }
    if (!authorized(ctx, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, request.transactionalId))
      return refused(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
    try {
      // Idempotent producers (above) need no coordinator; a transactional one loads them.
      await c.loadCoordinators();
      const answer = await c.transactions.initProducerId({
        transactionalId: request.transactionalId,
        transactionTimeoutMs: request.transactionTimeoutMs,
        producerId: request.producerId,
        producerEpoch: request.producerEpoch,
      });
      return {
        throttleTimeMs: 0,
        ...answer,
        errorCode: fencingErrorFor(answer.errorCode, ctx.header.requestApiVersion, FIRST_PRODUCER_FENCED_VERSION.initProducerId),
      };
    } catch (err) {
      return refused(kafkaErrorCode(err));
    }
  },
});
