/** The package's public entry: the embeddable broker. */
export { Broker, type BrokerStartOptions } from './broker/broker.js';
export type { BrokerConfig } from './broker/config.js';
