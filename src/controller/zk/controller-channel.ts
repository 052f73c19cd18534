/**
 * The controller's connections to the live brokers (Kafka's `ControllerChannelManager`): one
 * queue per broker, sent in order, each request retried over a new connection until it is
 * answered or the broker leaves the cluster — a broker that misses a LeaderAndIsr would serve a
 * stale role. Responses with errors are logged; the controller's state is already in ZooKeeper.
 */
import type { Logger } from '../../common/logger.js';
import type { ClientTls } from '@sluice/protocol/common/tls-config.js';
import { KafkaConnection } from '@sluice/client/connection.js';
import type { SaslCredentials } from '@sluice/client/sasl-client.js';
import { ErrorCode } from '@sluice/protocol/errors.js';

export interface BrokerEndpoint {
  readonly id: number;
  readonly host: string;
  readonly port: number;
}

/** One request to a broker: sends on the connection and checks the answer (throwing retries it); answers NONE or STALE_CONTROLLER_EPOCH. */
export type ControllerRequest = (connection: KafkaConnection) => Promise<number>;

export interface ControllerChannelOptions {
  readonly requestTimeoutMs: number;
  readonly retryBackoffMs: number;
  readonly clientId: string;
  /** How to authenticate when the inter-broker listener is a SASL one. */
  readonly sasl?: SaslCredentials;
  /** The inter-broker listener's TLS, when it is SSL or SASL_SSL. */
  readonly tls: ClientTls | null;
}

class BrokerQueue {
  private readonly queue: { readonly name: string; readonly send: ControllerRequest }[] = [];
  private connection: KafkaConnection | null = null;
  private running = false;
  private stopped = false;
  private backoff: NodeJS.Timeout | null = null;
  private wake: (() => void) | null = null;

  constructor(
    readonly endpoint: BrokerEndpoint,
    private readonly options: ControllerChannelOptions,
    private readonly log: Logger,
  ) {}

  enqueue(name: string, send: ControllerRequest): void {
    if (this.stopped) return;
    this.queue.push({ name, send });
    if (!this.running) void this.drain();
  }

  private async drain(): Promise<void> {
    this.running = true;
    while (!this.stopped && this.queue.length > 0) {
      const next = this.queue[0]!;
      try {
        this.connection ??= await KafkaConnection.connect({
          host: this.endpoint.host,
          port: this.endpoint.port,
          clientId: this.options.clientId,
          requestTimeoutMs: this.options.requestTimeoutMs,
          tls: this.options.tls,
          ...(this.options.sasl === undefined ? {} : { sasl: this.options.sasl }),
        });
        const answer = await next.send(this.connection);
        this.queue.shift();
        // The broker has heard from a newer controller; this one resigns when ZooKeeper tells it.
        if (answer === ErrorCode.STALE_CONTROLLER_EPOCH)
          this.log.warn('a broker refused this controller: STALE_CONTROLLER_EPOCH, a newer controller exists', {
            broker: this.endpoint.id,
            request: next.name,
          });
      } catch (err) {
        this.log.warn('controller request failed; retrying', {
          broker: this.endpoint.id,
          request: next.name,
          error: (err as Error).message,
        });
        this.connection?.close();
        this.connection = null;
        await new Promise<void>((resolve) => {
          this.wake = resolve;
          this.backoff = setTimeout(resolve, this.options.retryBackoffMs);
        });
      }
    }
    this.running = false;
  }

  stop(): void {
    this.stopped = true;
    this.queue.length = 0;
    if (this.backoff !== null) clearTimeout(this.backoff);
    this.wake?.();
    this.connection?.close();
    this.connection = null;
  }
}

export class ControllerChannel {
  private readonly queues = new Map<number, BrokerQueue>();

  constructor(
    private readonly options: ControllerChannelOptions,
    private readonly log: Logger,
  ) {}

  /** Keeps a queue for each live broker; a broker that left loses its pending requests, a re-registered one starts afresh. */
  setBrokers(brokers: readonly BrokerEndpoint[]): void {
    const live = new Map(brokers.map((b) => [b.id, b]));
    for (const [id, queue] of this.queues) {
      const now = live.get(id);
      if (now === undefined || now.host !== queue.endpoint.host || now.port !== queue.endpoint.port) {
        queue.stop();
        this.queues.delete(id);
      }
    }
    for (const b of brokers) if (!this.queues.has(b.id)) this.queues.set(b.id, new BrokerQueue(b, this.options, this.log));
  }

  /** Restarts a broker's queue: used when it re-registered with a new epoch (its old requests are moot). */
  resetBroker(id: number): void {
    const queue = this.queues.get(id);
    if (queue === undefined) return;
    queue.stop();
    this.queues.set(id, new BrokerQueue(queue.endpoint, this.options, this.log));
  }

  send(brokerId: number, name: string, request: ControllerRequest): void {
    this.queues.get(brokerId)?.enqueue(name, request);
  }

  close(): void {
    for (const q of this.queues.values()) q.stop();
    this.queues.clear();
  }
}
