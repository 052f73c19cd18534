/**
 * UpdateFeatures (key 57, KIP-584): finalizes, upgrades, downgrades or disables (level 0) feature
 * levels, all or nothing, as Kafka 4.4's controller does; `kafka-features.sh --bootstrap-server`
 * sends it (its `describe` is ApiVersions). The levels are stored where the metadata is (the single
 * broker's metadata file; `/feature` in ZooKeeper for a cluster, which every member follows). The
 * principal needs ALTER on the cluster.
 *
 * A refusal is the top-level error alone. v0 and v1 list each feature's result on success; from v2
 * there are none. v0's `allowDowngrade` is read as Kafka 4.4 reads it: not at all (the upgrade
 * type is UPGRADE's default), so a v0 downgrade is refused.
 */
import { UpdateFeaturesRequest, UpdateFeaturesResponse, type UpdateFeaturesResponseDataInput } from '@sluice/protocol/messages/index.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { AclOperation, authorizedOnCluster, CLUSTER_AUTHORIZATION_MESSAGE } from './authorization.js';
import { clusterOf } from './cluster-context.js';
import { defineHandler } from './handler.js';

const LAST_VERSION_WITH_RESULTS = 1;

export const updateFeaturesHandler = defineHandler({
  request: UpdateFeaturesRequest,
  response: UpdateFeaturesResponse,
  async handle(request, ctx): Promise<UpdateFeaturesResponseDataInput> {
    const refused = (errorCode: number, errorMessage: string | null): UpdateFeaturesResponseDataInput => ({
      throttleTimeMs: 0,
      errorCode,
      errorMessage,
      results: [],
    });
    if (!authorizedOnCluster(ctx, AclOperation.ALTER))
      return refused(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, CLUSTER_AUTHORIZATION_MESSAGE);
    const updates = request.featureUpdates.map((u) => ({ feature: u.feature, level: u.maxVersionLevel, upgradeType: u.upgradeType }));
    const result = await clusterOf(ctx).admin.updateFeatures(updates, request.validateOnly);
    if (result.errorCode !== ErrorCode.NONE) return refused(result.errorCode, result.errorMessage);
    const names = ctx.header.requestApiVersion <= LAST_VERSION_WITH_RESULTS ? [...new Set(updates.map((u) => u.feature))] : [];
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      results: names.map((feature) => ({ feature, errorCode: ErrorCode.NONE, errorMessage: null })),
    };
  },
});
