/**
 * Who a connection's requests act as, fixed when the connection is accepted: the listener it
 * came in on, that listener's security protocol, the authenticated principal and the client's
 * address. Authorization and quotas decide on it; until SASL and TLS exist every connection is a
 * PLAINTEXT one and its principal is Kafka's anonymous user.
 */
export type SecurityProtocol = 'PLAINTEXT' | 'SSL' | 'SASL_PLAINTEXT' | 'SASL_SSL';

/** Kafka's principal of an unauthenticated connection. */
export const ANONYMOUS_PRINCIPAL = 'User:ANONYMOUS';

export interface Session {
  readonly listenerName: string;
  readonly securityProtocol: SecurityProtocol;
  /** `User:<name>`, as Kafka's KafkaPrincipal prints it. */
  readonly principal: string;
  /** `host:port` of the client's end of the connection. */
  readonly clientAddress: string;
}
