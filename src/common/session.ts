/**
 * Who a connection's requests act as: the listener it came in on, that listener's security
 * protocol, the client's address and the principal. Authorization and quotas decide on it.
 * The principal starts as Kafka's anonymous user and is set once by the connection's
 * authentication (a TLS client certificate, or SASL), which is why it alone is writable.
 */
export type SecurityProtocol = 'PLAINTEXT' | 'SSL' | 'SASL_PLAINTEXT' | 'SASL_SSL';

/** Kafka's ids of the security protocols, as UpdateMetadata carries them. */
export const SECURITY_PROTOCOL_IDS: Readonly<Record<SecurityProtocol, number>> = { PLAINTEXT: 0, SSL: 1, SASL_PLAINTEXT: 2, SASL_SSL: 3 };

/** Kafka's principal of an unauthenticated connection. */
export const ANONYMOUS_PRINCIPAL = 'User:ANONYMOUS';

export interface Session {
  readonly listenerName: string;
  readonly securityProtocol: SecurityProtocol;
  /** `User:<name>`, as Kafka's KafkaPrincipal prints it. */
  principal: string;
  /** `host:port` of the client's end of the connection. */
  readonly clientAddress: string;
  /** The client's IP address alone, as ACL host entries and `ips` quota entities name it. */
  readonly clientHost: string;
}
