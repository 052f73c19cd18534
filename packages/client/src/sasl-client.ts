/**
 * The client side of SASL on a fresh connection (KIP-152): SaslHandshake v1, then the
 * mechanism's tokens in SaslAuthenticate requests. PLAIN sends the password; SCRAM-SHA-256/512
 * (RFC 5802) proves it without sending it and checks the broker's signature, so a broker that
 * does not know the password cannot pass for one that does. Used by the tools (`sasl.mechanism`
 * and `sasl.jaas.config` of a `--command-config` file) and by brokers towards each other.
 */
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import type { MessageCodec } from '@sluice/protocol/primitives/codec-support.js';
import {
  SaslAuthenticateRequest,
  SaslAuthenticateResponse,
  SaslHandshakeRequest,
  SaslHandshakeResponse,
} from '@sluice/protocol/messages/index.js';
import { authMessage, parseServerFinal, parseServerFirst } from '@sluice/protocol/sasl/scram-messages.js';
import {
  clientKey,
  digest,
  escapeSaslName,
  hmac,
  randomNonce,
  saltedPassword,
  scramMechanism,
  serverKey,
  xor,
  type ScramMechanism,
} from '@sluice/protocol/sasl/scram-formatter.js';

export interface SaslCredentials {
  /** PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512. */
  readonly mechanism: string;
  readonly username: string;
  readonly password: string;
}

/** What the exchange needs of a connection: the handshake, and one SaslAuthenticate round trip per token. */
export interface SaslRoundTrips {
  handshake(mechanism: string): Promise<void>;
  send(token: Buffer): Promise<{ readonly authBytes: Buffer; readonly sessionLifetimeMs: number }>;
}

function authenticationFailed(message: string): KafkaError {
  return new KafkaError(ErrorCode.SASL_AUTHENTICATION_FAILED, message);
}

/**
 * Runs the exchange; resolves with the session lifetime the broker granted (0: unlimited), or
 * rejects with a KafkaError (UNSUPPORTED_SASL_MECHANISM, SASL_AUTHENTICATION_FAILED, …).
 */
export async function authenticate(trips: SaslRoundTrips, credentials: SaslCredentials): Promise<number> {
  const send = (token: Buffer): ReturnType<SaslRoundTrips['send']> => trips.send(token);
  await trips.handshake(credentials.mechanism);
  if (credentials.mechanism === 'PLAIN') {
    const reply = await send(Buffer.from(`\u0000${credentials.username}\u0000${credentials.password}`, 'utf8'));
    return reply.sessionLifetimeMs;
  }
  const scram = scramMechanism(credentials.mechanism);
  if (scram === undefined)
    throw new KafkaError(ErrorCode.UNSUPPORTED_SASL_MECHANISM, `this client does not support SASL mechanism ${credentials.mechanism}`);
  return scramExchange(scram, credentials, send);
}

async function scramExchange(scram: ScramMechanism, credentials: SaslCredentials, send: SaslRoundTrips['send']): Promise<number> {
  const clientNonce = randomNonce();
  const clientFirstBare = `n=${escapeSaslName(credentials.username)},r=${clientNonce}`;
  const first = await send(Buffer.from(`n,,${clientFirstBare}`, 'utf8'));
  const serverFirstText = first.authBytes.toString('utf8');
  const serverFirst = parseServerFirst(serverFirstText);
  if (serverFirst === undefined) throw authenticationFailed(`invalid ${scram.name} server first message`);
  if (!serverFirst.nonce.startsWith(clientNonce) || serverFirst.nonce === clientNonce)
    throw authenticationFailed(`${scram.name}: the server's nonce does not extend the client's`);
  if (serverFirst.iterations < scram.minIterations)
    throw authenticationFailed(`${scram.name}: ${serverFirst.iterations} iterations is less than the minimum ${scram.minIterations}`);
  const salted = saltedPassword(scram, credentials.password, serverFirst.salt, serverFirst.iterations);
  const withoutProof = `c=${Buffer.from('n,,').toString('base64')},r=${serverFirst.nonce}`;
  const message = authMessage(clientFirstBare, serverFirstText, withoutProof);
  const key = clientKey(scram, salted);
  const proof = xor(key, hmac(scram, digest(scram, key), message));
  const final = await send(Buffer.from(`${withoutProof},p=${proof.toString('base64')}`, 'utf8'));
  const serverFinal = parseServerFinal(final.authBytes.toString('utf8'));
  if (serverFinal === undefined) throw authenticationFailed(`invalid ${scram.name} server final message`);
  if ('error' in serverFinal) throw authenticationFailed(`${scram.name}: ${serverFinal.error}`);
  if (!serverFinal.signature.equals(hmac(scram, serverKey(scram, salted), message)))
    throw authenticationFailed(`${scram.name}: invalid server signature`);
  return final.sessionLifetimeMs;
}

/** SaslHandshake and SaslAuthenticate over a connection's `request`; errors become KafkaErrors. */
export function roundTripsOver(
  request: <T, I>(req: MessageCodecOf<I>, res: MessageCodecOut<T>, body: (version: number) => I) => Promise<T>,
): SaslRoundTrips {
  return {
    async handshake(mechanism) {
      const res = await request(SaslHandshakeRequest, SaslHandshakeResponse, () => ({ mechanism }));
      if (res.errorCode !== ErrorCode.NONE)
        throw new KafkaError(
          res.errorCode,
          `SASL mechanism ${mechanism} refused; the broker enables ${res.mechanisms.join(', ') || 'none'}`,
        );
    },
    async send(authBytes) {
      const res = await request(SaslAuthenticateRequest, SaslAuthenticateResponse, () => ({ authBytes }));
      if (res.errorCode !== ErrorCode.NONE) throw new KafkaError(res.errorCode, res.errorMessage ?? 'SASL authentication failed');
      return { authBytes: res.authBytes, sessionLifetimeMs: Number(res.sessionLifetimeMs) };
    },
  };
}
type MessageCodecOf<I> = MessageCodec<unknown, I>;
type MessageCodecOut<T> = MessageCodec<T, unknown>;
