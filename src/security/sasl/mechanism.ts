/**
 * The server side of one SASL exchange, and the two ways it fails, as Kafka tells them apart:
 * an `SaslAuthenticationError` carries a message meant for the client ("Invalid username or
 * password"); an `InvalidSaslCredentials` carries a detail for the broker's log only, and the
 * client is told just that its credentials were invalid, so nothing (such as whether a user
 * exists) leaks to an unauthenticated peer.
 */
export interface SaslServerMechanism {
  readonly mechanism: string;
  /** Takes the client's next token and returns the server's (empty when there is nothing to say). */
  evaluate(token: Buffer): Buffer;
  /** The exchange succeeded; `authorizationId` names the user. */
  readonly complete: boolean;
  readonly authorizationId: string;
}

export class SaslAuthenticationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SaslAuthenticationError';
  }
}

export class InvalidSaslCredentials extends Error {
  constructor(detail: string) {
    super(detail);
    this.name = 'InvalidSaslCredentials';
  }
}

/** Kafka's answer to the client for an `InvalidSaslCredentials`. */
export function invalidCredentialsMessage(mechanism: string, reauthentication: boolean): string {
  return `Authentication failed during ${reauthentication ? 're-authentication' : 'authentication'} due to invalid credentials with SASL mechanism ${mechanism}`;
}
