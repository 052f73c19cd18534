/**
 * ApiVersions (key 18): tells a client which APIs and versions this broker serves. The list is
 * the registry's, so it can never advertise an API nobody handles. A request at a version the
 * broker does not know is answered by the network layer (see `unsupportedApiVersionsResponse`).
 * From v3 the answer also carries the features (KIP-584) as Kafka 4.x does: clients switch
 * protocols on the finalized levels (the Java producer uses transaction version 2, KIP-890, only
 * when `transaction.version` is finalized at 2 or more). The finalized levels are the cluster's
 * (UpdateFeatures changes them), with the epoch of their last change.
 */
import {
  ApiVersionsRequest,
  ApiVersionsResponse,
  type ApiVersionsResponseDataInput,
} from '@sluice/protocol/messages/api/18-api-versions.js';
import { SUPPORTED_FEATURES, type FinalizedFeatures } from '../metadata/features.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { clusterOf } from './cluster-context.js';
import { defineHandler, type ApiVersionRange } from './handler.js';

/** KIP-511: client software name and version must match this pattern. */
const CLIENT_SOFTWARE_PATTERN = /^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$/;

export function apiVersionsBody(errorCode: number, apis: readonly ApiVersionRange[]): ApiVersionsResponseDataInput {
  return {
    errorCode,
    apiKeys: apis.map((a) => ({ apiKey: a.apiKey, minVersion: a.minVersion, maxVersion: a.maxVersion })),
    throttleTimeMs: 0,
  };
}

function withFeatures(body: ApiVersionsResponseDataInput, finalized: FinalizedFeatures): ApiVersionsResponseDataInput {
  return {
    ...body,
    supportedFeatures: SUPPORTED_FEATURES.map((f) => ({ name: f.name, minVersion: f.minVersion, maxVersion: f.maxVersion })),
    finalizedFeaturesEpoch: finalized.epoch,
    finalizedFeatures: [...finalized.levels].map(([name, level]) => ({ name, minVersionLevel: level, maxVersionLevel: level })),
  };
}

export const apiVersionsHandler = defineHandler({
  request: ApiVersionsRequest,
  response: ApiVersionsResponse,
  handle(request, ctx) {
    if (ctx.header.requestApiVersion >= 3) {
      const valid = CLIENT_SOFTWARE_PATTERN.test(request.clientSoftwareName) && CLIENT_SOFTWARE_PATTERN.test(request.clientSoftwareVersion);
      if (!valid) return apiVersionsBody(ErrorCode.INVALID_REQUEST, []);
    }
    return withFeatures(apiVersionsBody(ErrorCode.NONE, ctx.supportedApis), clusterOf(ctx).metadata.features);
  },
});
