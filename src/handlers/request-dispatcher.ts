/**
 * Serves one request: finds its handler in the registry, answers an ApiVersions request at an
 * unknown version the KIP-511 way, and encodes the handler's response with the header version
 * Kafka uses. Failures other than bad input are logged with the request's identity and rethrown.
 */
import type { Logger } from '../common/logger.js';
import { ErrorCode } from '../protocol/errors.js';
import { API_VERSIONS_KEY, encodeResponse } from '../protocol/envelope.js';
import { ApiVersionsResponse, type RequestHeaderData } from '../protocol/messages/index.js';
import { DecodeError } from '../protocol/primitives/decode-error.js';
import type { Reader } from '../protocol/primitives/reader.js';
import type { FrameParts } from '../protocol/primitives/writer.js';
import { apiVersionsBody } from './18-api-versions.js';
import { NO_RESPONSE, type RequestContext } from './handler.js';
import type { HandlerRegistry } from './registry.js';

export class RequestDispatcher {
  constructor(
    private readonly registry: HandlerRegistry,
    private readonly log: Logger,
  ) {}

  async dispatch(header: RequestHeaderData, body: Reader, clientAddress: string): Promise<FrameParts | null> {
    const apiKey = header.requestApiKey;
    const version = header.requestApiVersion;
    const handler = this.registry.get(apiKey);
    if (handler === undefined) throw new DecodeError(`API key ${apiKey} is not served by this broker`);
    if (!this.registry.supports(apiKey, version)) {
      if (apiKey !== API_VERSIONS_KEY) throw new DecodeError(`unsupported version ${version} of ${handler.name}`);
      // KIP-511: answer with version 0, the error and our ranges, so the client can pick a version.
      const response = apiVersionsBody(ErrorCode.UNSUPPORTED_VERSION, this.registry.supportedApis);
      return encodeResponse(apiKey, 0, header.correlationId, (w) => ApiVersionsResponse.write(w, response, 0));
    }
    const ctx: RequestContext = { header, clientAddress, supportedApis: this.registry.supportedApis };
    try {
      const response = await handler.invoke(body, ctx);
      return response === NO_RESPONSE ? null : encodeResponse(apiKey, version, header.correlationId, response);
    } catch (err) {
      if (!(err instanceof DecodeError)) {
        this.log.error('request failed', {
          client: clientAddress,
          clientId: header.clientId,
          api: handler.name,
          version,
          correlationId: header.correlationId,
          error: err instanceof Error ? err.stack : String(err),
        });
      }
      throw err;
    }
  }
}
