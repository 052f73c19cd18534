/**
 * ApiVersions (key 18): tells a client which APIs and versions this broker serves. The list is
 * the registry's, so it can never advertise an API nobody handles. A request at a version the
 * broker does not know is answered by the network layer (see `unsupportedApiVersionsResponse`).
 */
import { ApiVersionsRequest, ApiVersionsResponse, type ApiVersionsResponseDataInput } from '../protocol/messages/index.js';
import { ErrorCode } from '../protocol/errors.js';
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

export const apiVersionsHandler = defineHandler({
  request: ApiVersionsRequest,
  response: ApiVersionsResponse,
  handle(request, ctx) {
    if (ctx.header.requestApiVersion >= 3) {
      const valid =
        CLIENT_SOFTWARE_PATTERN.test(request.clientSoftwareName) && CLIENT_SOFTWARE_PATTERN.test(request.clientSoftwareVersion);
      if (!valid) return apiVersionsBody(ErrorCode.INVALID_REQUEST, []);
    }
    return apiVersionsBody(ErrorCode.NONE, ctx.supportedApis);
  },
});
