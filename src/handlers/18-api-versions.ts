/**
 * ApiVersions (key 18): tells a client which APIs and versions this broker serves. The list is
 * the registry's, so it can never advertise an API nobody handles. A request at a version the
 * broker does not know is answered by the network layer (see `unsupportedApiVersionsResponse`).
 * From v3 the answer also carries the features (KIP-584) as Kafka 4.x does: clients switch
 * protocols on the finalized levels (the Java producer uses transaction version 2, KIP-890, only
 * when `transaction.version` is finalized at 2 or more).
 */
import { ApiVersionsRequest, ApiVersionsResponse, type ApiVersionsResponseDataInput } from '../protocol/messages/index.js';
import { DEFAULT_TRANSACTION_COORDINATOR_CONFIG } from '../coordinator/transaction/config.js';
import { ErrorCode } from '../protocol/errors.js';
import { defineHandler, type ApiVersionRange } from './handler.js';

/** KIP-511: client software name and version must match this pattern. */
const CLIENT_SOFTWARE_PATTERN = /^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$/;

/** A feature this broker supports, and the level it runs at (features are never changed here). */
interface Feature {
  readonly name: string;
  readonly minVersion: number;
  readonly maxVersion: number;
  readonly finalizedLevel: number;
}

/**
 * `group.version` 1: the consumer group protocol (KIP-848); `transaction.version` 2: transactions
 * whose epoch bumps at every end and whose partitions the leaders verify (KIP-890);
 * `share.version` 2: share groups (KIP-932), at Kafka 4.4's latest production level.
 */
const FEATURES: readonly Feature[] = [
  { name: 'group.version', minVersion: 0, maxVersion: 1, finalizedLevel: 1 },
  { name: 'transaction.version', minVersion: 0, maxVersion: 2, finalizedLevel: DEFAULT_TRANSACTION_COORDINATOR_CONFIG.transactionVersionLevel },
  { name: 'share.version', minVersion: 0, maxVersion: 2, finalizedLevel: 2 },
];
/** The levels never change, so their epoch never moves; clients compare it against -1 (none seen). */
const FINALIZED_FEATURES_EPOCH = 0n;

export function apiVersionsBody(errorCode: number, apis: readonly ApiVersionRange[]): ApiVersionsResponseDataInput {
  return {
    errorCode,
    apiKeys: apis.map((a) => ({ apiKey: a.apiKey, minVersion: a.minVersion, maxVersion: a.maxVersion })),
    throttleTimeMs: 0,
  };
}

function withFeatures(body: ApiVersionsResponseDataInput): ApiVersionsResponseDataInput {
  return {
    ...body,
    supportedFeatures: FEATURES.map((f) => ({ name: f.name, minVersion: f.minVersion, maxVersion: f.maxVersion })),
    finalizedFeaturesEpoch: FINALIZED_FEATURES_EPOCH,
    finalizedFeatures: FEATURES.map((f) => ({ name: f.name, minVersionLevel: f.finalizedLevel, maxVersionLevel: f.finalizedLevel })),
  };
}

export const apiVersionsHandler = defineHandler({
  request: ApiVersionsRequest,
  response: ApiVersionsResponse,
  handle(request, ctx) {
    if (ctx.header.requestApiVersion >= 3) {
      const valid =
        CLIENT_SOFTWARE_PATTERN.test(request.clientSoftwareName) && CLIENT_SOFTWARE_PATTERN.test(request.clientSoftwareVersion);
      if (!valid) return apiVersionsBody(ErrorCode.INVALID_REQUEST, []);
    }
    return withFeatures(apiVersionsBody(ErrorCode.NONE, ctx.supportedApis));
  },
});
