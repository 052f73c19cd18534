/**
 * The composition root: builds the handler registry and the listener from a configuration.
 * Usable in-process by test suites: `const broker = await Broker.start({ port: 0 })`,
 * `broker.bootstrap`, `await broker.stop()`.
 */
import { Logger } from '../common/logger.js';
import { HANDLERS } from '../handlers/index.js';
import { HandlerRegistry } from '../handlers/registry.js';
import { RequestDispatcher } from '../handlers/request-dispatcher.js';
import { Listener } from '../network/listener.js';
import { buildConfig, type BrokerConfig } from './config.js';

export interface BrokerStartOptions {
  readonly host?: string;
  /** 0 picks a free port. */
  readonly port?: number;
  /** Kafka configuration keys, e.g. `{ 'socket.request.max.bytes': '1048576' }`. */
  readonly config?: Readonly<Record<string, string>>;
}

export class Broker {
  private constructor(
    readonly config: BrokerConfig,
    private readonly listener: Listener,
    readonly host: string,
    readonly port: number,
  ) {}

  get bootstrap(): string {
    return `${this.host.includes(':') ? `[${this.host}]` : this.host}:${this.port}`;
  }

  static async start(options: BrokerStartOptions = {}): Promise<Broker> {
    const settings = new Map(Object.entries(options.config ?? {}));
    if (options.host !== undefined || options.port !== undefined) {
      settings.set('listeners', `PLAINTEXT://${options.host ?? '127.0.0.1'}:${options.port ?? 9092}`);
    }
    const { config, unknownKeys } = buildConfig(settings);
    const log = new Logger('broker');
    for (const key of unknownKeys) log.warn('ignoring unknown configuration key', { key });
    const registry = new HandlerRegistry(HANDLERS);
    const listener = new Listener(
      new RequestDispatcher(registry, new Logger('handlers')),
      { maxFrameBytes: config.socketRequestMaxBytes, maxInFlightRequests: config.maxInFlightRequests },
      new Logger('network'),
    );
    const bound = await listener.listen(config.listenerHost, config.listenerPort);
    return new Broker(config, listener, bound.host, bound.port);
  }

  async stop(): Promise<void> {
    await this.listener.close();
  }
}
