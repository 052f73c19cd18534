/**
 * This member's connections to the other brokers, at most one per broker, each reached on the
 * endpoint the latest metadata advertises for it and replaced when that endpoint changes or the
 * connection fails. Requests to the controller, and a transaction coordinator's requests to
 * partition leaders and theirs back, all go over these.
 */
import { KafkaConnection } from '@sluice/client/connection.js';
import type { SaslCredentials } from '@sluice/client/sasl-client.js';
import type { ClientTls } from '@sluice/protocol/common/tls-config.js';
import type { MetadataSource } from '../metadata/metadata-image.js';

interface OpenConnection {
  readonly address: string;
  readonly open: Promise<KafkaConnection>;
}

export class BrokerConnections {
  private readonly connections = new Map<number, OpenConnection>();

  constructor(
    private readonly metadata: MetadataSource,
    private readonly clientId: string,
    private readonly requestTimeoutMs: number,
    /** The inter-broker listener's TLS, when it is SSL or SASL_SSL. */
    private readonly tls: ClientTls | null,
    /** How to authenticate when the inter-broker listener is a SASL one. */
    private readonly sasl?: SaslCredentials,
  ) {}

  /** A connection to broker `brokerId`, or null while the metadata does not know the broker. */
  async connect(brokerId: number): Promise<KafkaConnection | null> {
    const broker = this.metadata.image.broker(brokerId);
    if (broker === undefined) return null;
    const address = `${broker.host}:${broker.port}`;
    let current = this.connections.get(brokerId);
    if (current === undefined || current.address !== address) {
      this.reset(brokerId);
      const open = KafkaConnection.connect({
        host: broker.host,
        port: broker.port,
        clientId: this.clientId,
        requestTimeoutMs: this.requestTimeoutMs,
        tls: this.tls,
        ...(this.sasl === undefined ? {} : { sasl: this.sasl }),
      });
      // A failed open is reported to the caller awaiting it below; this keeps it from going unhandled meanwhile.
      open.catch(() => undefined);
      current = { address, open };
      this.connections.set(brokerId, current);
    }
    const opened = current;
    const connection = await opened.open.catch((err: unknown) => {
      if (this.connections.get(brokerId) === opened) this.connections.delete(brokerId);
      throw err;
    });
    if (connection.isClosed) {
      if (this.connections.get(brokerId) === opened) this.connections.delete(brokerId);
      return this.connect(brokerId);
    }
    return connection;
  }

  /** Closes the connection to `brokerId` (after a request on it failed): the next use opens a new one. */
  reset(brokerId: number): void {
    const open = this.connections.get(brokerId)?.open;
    this.connections.delete(brokerId);
    void open?.then(
      (c) => c.close(),
      () => undefined,
    );
  }

  close(): void {
    for (const brokerId of [...this.connections.keys()]) this.reset(brokerId);
  }
}
