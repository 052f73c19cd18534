/**
 * The Kafka producer properties `sluice tune --client sluice` understands, as
 * `BatchingProducer` options (Kafka's names and meanings; `request.timeout.ms` is the Produce
 * request's ack timeout, as in Kafka). Security keys (`security.protocol`, `sasl.*`, `ssl.*`) go
 * to the connections; anything else a Java or librdkafka properties file may hold is returned
 * as ignored, for the driver to say so.
 */
import { clientSecurity, type ClientSecurity } from '../client/client-security-config.js';
import { compressionType, isCompressionName } from '../client/compression-codecs.js';
import type { BatchingProducerOptions } from '../client/producer-batching.js';
import type { Acks } from '../client/producer-request.js';

export interface SluiceProducerConfig {
  readonly producer: BatchingProducerOptions;
  readonly security: ClientSecurity;
  readonly ignored: readonly string[];
}

export class ProducerConfigError extends Error {
  override name = 'ProducerConfigError';
}

const INTEGER_KEYS = {
  'batch.size': 'batchSize',
  'linger.ms': 'lingerMs',
  'max.in.flight.requests.per.connection': 'maxInFlight',
  'max.request.size': 'maxRequestSize',
  'buffer.memory': 'bufferMemory',
  'request.timeout.ms': 'ackTimeoutMs',
  'delivery.timeout.ms': 'deliveryTimeoutMs',
  'retry.backoff.ms': 'retryBackoffMs',
} as const satisfies Record<string, keyof BatchingProducerOptions>;

/** The keys of a client configuration that say how to connect (`clientSecurity`), not how to produce. */
export function isSecurityKey(key: string): boolean {
  return /^(security\.protocol|sasl\.|ssl\.)/.test(key);
}

export function sluiceProducerConfig(props: ReadonlyMap<string, string>): SluiceProducerConfig {
  const producer: { -readonly [K in keyof BatchingProducerOptions]: BatchingProducerOptions[K] } = {};
  const ignored: string[] = [];
  for (const [key, raw] of props) {
    const value = raw.trim();
    if (key in INTEGER_KEYS) {
      if (!/^\d+$/.test(value)) throw new ProducerConfigError(`${key} must be a non-negative integer, not '${raw}'`);
      producer[INTEGER_KEYS[key as keyof typeof INTEGER_KEYS]] = Number(value);
    } else if (key === 'acks') {
      const acks = value === 'all' ? -1 : Number(value);
      if (acks !== -1 && acks !== 0 && acks !== 1) throw new ProducerConfigError(`acks must be all, -1, 0 or 1, not '${raw}'`);
      producer.acks = acks as Acks;
    } else if (key === 'compression.type') {
      if (!isCompressionName(value)) throw new ProducerConfigError(`compression.type '${raw}' is not none, gzip, snappy, lz4 or zstd`);
      producer.compression = compressionType(value);
    } else if (!isSecurityKey(key)) {
      ignored.push(key);
    }
  }
  return { producer, security: clientSecurity(props), ignored };
}
