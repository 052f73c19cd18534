/**
 * SaslHandshake (key 17): picks the SASL mechanism of a connection on a SASL listener (see
 * `security/sasl/authenticator.ts`). v0 would send the tokens raw, outside Kafka framing; Kafka
 * 4.4 still advertises it, but every client in use sends v1, and v0 closes the connection here.
 * On other listeners, or once authenticated, the answer is ILLEGAL_SASL_STATE, as Kafka's.
 */
import { ErrorCode } from '@sluice/protocol/errors.js';
import { SaslHandshakeRequest, SaslHandshakeResponse } from '@sluice/protocol/messages/index.js';
import { defineHandler } from './handler.js';

export const saslHandshakeHandler = defineHandler({
  request: SaslHandshakeRequest,
  response: SaslHandshakeResponse,
  versions: { lo: 1, hi: 1 },
  advertisedVersions: { lo: 0, hi: 1 },
  handle(request, ctx) {
    const result = ctx.authenticator?.handshake(ctx.session, request.mechanism) ?? {
      errorCode: ErrorCode.ILLEGAL_SASL_STATE,
      mechanisms: [],
    };
    return { errorCode: result.errorCode, mechanisms: [...result.mechanisms] };
  },
});
