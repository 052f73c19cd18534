/**
 * AlterClientQuotas (key 49): sets and removes quotas of user, client-id and ip entities in the
 * client-entity store (the broker's metadata, or ZooKeeper on a cluster, where every broker's
 * quotas follow it). Each entry is validated as Kafka 4.4's controller does and answered on its
 * own; `validate_only` writes nothing. The principal needs ALTER_CONFIGS on the cluster.
 */
import { kafkaErrorCode } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import {
  AlterClientQuotasRequest,
  AlterClientQuotasResponse,
  type AlterClientQuotasResponseDataInput,
} from '@sluice/protocol/messages/index.js';
import { applyQuotaChanges, validateAlterations } from '../quota/client-quota-requests.js';
import { clusterOf } from './cluster-context.js';
import { AclOperation, authorizedOnCluster, CLUSTER_AUTHORIZATION_MESSAGE } from './authorization.js';
import { defineHandler } from './handler.js';

export const alterClientQuotasHandler = defineHandler({
  request: AlterClientQuotasRequest,
  response: AlterClientQuotasResponse,
  async handle(request, ctx): Promise<AlterClientQuotasResponseDataInput> {
    const c = clusterOf(ctx);
    if (!authorizedOnCluster(ctx, AclOperation.ALTER_CONFIGS)) {
      const entries = request.entries.map((e) => ({
        errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
        errorMessage: CLUSTER_AUTHORIZATION_MESSAGE,
        entity: e.entity.map((x) => ({ entityType: x.entityType, entityName: x.entityName })),
      }));
      return { entries, throttleTimeMs: 0 };
    }
    const validated = validateAlterations(request.entries);
    const entries = await Promise.all(
      validated.map(async (v, i) => {
        const entity = request.entries[i]!.entity.map((e) => ({ entityType: e.entityType, entityName: e.entityName }));
        if (!v.ok) return { errorCode: v.errorCode, errorMessage: v.errorMessage, entity };
        if (request.validateOnly) return { errorCode: ErrorCode.NONE, errorMessage: null, entity };
        try {
          await c.clientEntities.alter(v.entity, (current) => applyQuotaChanges(current, v.changes));
          return { errorCode: ErrorCode.NONE, errorMessage: null, entity };
        } catch (err) {
          return { errorCode: kafkaErrorCode(err), errorMessage: (err as Error).message, entity };
        }
      }),
    );
    return { entries, throttleTimeMs: 0 };
  },
});
