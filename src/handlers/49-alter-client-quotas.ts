/**
 * AlterClientQuotas (key 49): sets and removes quotas of user, client-id and ip entities in the
 * client-entity store (the broker's metadata, or ZooKeeper on a cluster, where every broker's
 * quotas follow it). Each entry is validated as Kafka 4.4's controller does and answered on its
 * own; `validate_only` writes nothing. Authorization (ALTER_CONFIGS on the cluster) comes with
 * the ACL work.
 */
import { kafkaErrorCode } from '../common/kafka-error.js';
import { ErrorCode } from '../protocol/errors.js';
import { AlterClientQuotasRequest, AlterClientQuotasResponse, type AlterClientQuotasResponseDataInput } from '../protocol/messages/index.js';
import { applyQuotaChanges, validateAlterations } from '../quota/client-quota-requests.js';
import { clusterOf } from './cluster-context.js';
import { defineHandler } from './handler.js';

export const alterClientQuotasHandler = defineHandler({
  request: AlterClientQuotasRequest,
  response: AlterClientQuotasResponse,
  async handle(request, ctx): Promise<AlterClientQuotasResponseDataInput> {
    const c = clusterOf(ctx);
    // Authorization call site: ALTER_CONFIGS on the cluster, else CLUSTER_AUTHORIZATION_FAILED for every entry.
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
