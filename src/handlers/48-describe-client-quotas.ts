/**
 * DescribeClientQuotas (key 48): the quotas of the user, client-id and ip entities matching the
 * request's filter, as Kafka 4.4 answers them; a filter Kafka refuses answers its error for the
 * whole request. The principal needs DESCRIBE_CONFIGS on the cluster.
 */
import { kafkaErrorCode } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import {
  DescribeClientQuotasRequest,
  DescribeClientQuotasResponse,
  type DescribeClientQuotasResponseDataInput,
} from '@sluice/protocol/messages/index.js';
import { describeClientQuotas } from '../quota/client-quota-requests.js';
import { clusterOf } from './cluster-context.js';
import { AclOperation, authorizedOnCluster, CLUSTER_AUTHORIZATION_MESSAGE } from './authorization.js';
import { defineHandler } from './handler.js';

export const describeClientQuotasHandler = defineHandler({
  request: DescribeClientQuotasRequest,
  response: DescribeClientQuotasResponse,
  handle(request, ctx): DescribeClientQuotasResponseDataInput {
    const c = clusterOf(ctx);
    if (!authorizedOnCluster(ctx, AclOperation.DESCRIBE_CONFIGS)) {
      return {
        errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
        errorMessage: CLUSTER_AUTHORIZATION_MESSAGE,
        entries: null,
        throttleTimeMs: 0,
      };
    }
    try {
      const entries = describeClientQuotas(c.clientEntities.entities(), request.components, request.strict);
      return { errorCode: ErrorCode.NONE, errorMessage: null, entries, throttleTimeMs: 0 };
    } catch (err) {
      return { errorCode: kafkaErrorCode(err), errorMessage: (err as Error).message, entries: null, throttleTimeMs: 0 };
    }
  },
});
