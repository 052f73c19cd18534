/**
 * A member's requests to the active controller (Kafka's `BrokerToControllerChannelManager` of
 * the ZooKeeper era): the controller is the one the latest UpdateMetadata named, reached on its
 * advertised endpoint over one connection that is replaced when the controller moves or the
 * connection fails. NOT_CONTROLLER answers are the caller's to retry.
 */
import { KafkaConnection } from '../client/connection.js';
import type { MetadataSource } from '../cluster/metadata-image.js';
import { KafkaError } from '../common/kafka-error.js';
import { ErrorCode } from '../protocol/errors.js';

export class ControllerClient {
  private connection: { readonly controllerId: number; readonly address: string; readonly open: Promise<KafkaConnection> } | null = null;

  constructor(
    private readonly metadata: MetadataSource,
    private readonly clientId: string,
    private readonly requestTimeoutMs: number,
  ) {}

  /** A connection to the current controller; throws NOT_CONTROLLER while none is known. */
  async connect(): Promise<KafkaConnection> {
    const image = this.metadata.image;
    const controller = image.broker(image.controllerId);
    if (controller === undefined) throw new KafkaError(ErrorCode.NOT_CONTROLLER, 'no controller is known yet');
    const address = `${controller.host}:${controller.port}`;
    if (this.connection === null || this.connection.controllerId !== controller.nodeId || this.connection.address !== address) {
      this.close();
      const open = KafkaConnection.connect({ host: controller.host, port: controller.port, clientId: this.clientId, requestTimeoutMs: this.requestTimeoutMs });
      this.connection = { controllerId: controller.nodeId, address, open };
      open.catch(() => undefined);
    }
    const connection = await this.connection.open.catch((err: unknown) => {
      this.connection = null;
      throw err;
    });
    if (connection.isClosed) {
      this.connection = null;
      return this.connect();
    }
    return connection;
  }

  close(): void {
    const open = this.connection?.open;
    this.connection = null;
    void open?.then((c) => c.close(), () => undefined);
  }
}
