/** `host:port` lists as Kafka's tools take them (`--bootstrap-server a:9092,b:9092`, `[::1]:9092`). */
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';

export interface BrokerAddress {
  readonly host: string;
  readonly port: number;
}

export function parseBrokerAddress(text: string): BrokerAddress {
  const m = /^(?:\[([^\]]+)\]|([^:\s]+)):(\d{1,5})$/.exec(text.trim());
  const port = m ? Number(m[3]) : NaN;
  if (!m || port < 1 || port > 65535) {
    throw new KafkaError(ErrorCode.INVALID_REQUEST, `'${text}' is not a HOST:PORT broker address`);
  }
  return { host: (m[1] ?? m[2])!, port };
}

export function parseBootstrapServers(text: string): BrokerAddress[] {
  const parts = text.split(',').filter((p) => p.trim() !== '');
  if (parts.length === 0) throw new KafkaError(ErrorCode.INVALID_REQUEST, 'no bootstrap server given');
  return parts.map(parseBrokerAddress);
}
