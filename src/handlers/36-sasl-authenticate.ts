/**
 * SaslAuthenticate (key 36): carries a connection's SASL tokens (KIP-152); from v1 the final
 * answer tells the client how long its session lasts (KIP-368). The exchange itself is the
 * authenticator's (`security/sasl/authenticator.ts`); without one, or on a non-SASL listener,
 * the answer is ILLEGAL_SASL_STATE, as Kafka's.
 */
import { ErrorCode } from '@sluice/protocol/errors.js';
import { SaslAuthenticateRequest, SaslAuthenticateResponse } from '@sluice/protocol/messages/index.js';
import { defineHandler } from './handler.js';

export const saslAuthenticateHandler = defineHandler({
  request: SaslAuthenticateRequest,
  response: SaslAuthenticateResponse,
  handle(request, ctx) {
    if (ctx.authenticator === undefined) {
      return {
        errorCode: ErrorCode.ILLEGAL_SASL_STATE,
        errorMessage: 'SaslAuthenticate request received after successful authentication',
        authBytes: Buffer.alloc(0),
      };
    }
    const result = ctx.authenticator.authenticate(ctx.session, request.authBytes);
    return {
      errorCode: result.errorCode,
      errorMessage: result.errorMessage,
      authBytes: result.authBytes,
      sessionLifetimeMs: BigInt(result.sessionLifetimeMs),
    };
  },
});
