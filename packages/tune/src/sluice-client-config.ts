/**
 * The Kafka client properties `sluice tune --client sluice` understands: the producer's as
 * `BatchingProducer` options, the end-to-end consumer's as `KafkaConsumerClient` options (Kafka's
 * names and meanings; `request.timeout.ms` is the Produce request's ack timeout, as in Kafka).
 * Security keys (`security.protocol`, `sasl.*`, `ssl.*`) go to the connections; anything else a
 * Java or librdkafka properties file may hold is returned as ignored, for the driver to say so.
 */
import { clientSecurity, type ClientSecurity } from '@sluice/client/client-security-config.js';
import { compressionType, isCompressionName } from '@sluice/client/compression-codecs.js';
import type { BatchingProducerOptions } from '@sluice/client/producer-batching.js';
import type { ConsumerOptions } from '@sluice/client/consumer-client.js';

/** A client's properties as Sluice's client options, how it connects, and the keys it leaves out. */
export interface SluiceClientConfig<Options> {
  readonly options: Options;
  readonly security: ClientSecurity;
  readonly ignored: readonly string[];
}

export class ClientConfigError extends Error {
  override name = 'ClientConfigError';
}

const PRODUCER_INTEGER_KEYS = {
  'batch.size': 'batchSize',
  'linger.ms': 'lingerMs',
  'max.in.flight.requests.per.connection': 'maxInFlight',
  'max.request.size': 'maxRequestSize',
  'buffer.memory': 'bufferMemory',
  'request.timeout.ms': 'ackTimeoutMs',
  'delivery.timeout.ms': 'deliveryTimeoutMs',
  'retry.backoff.ms': 'retryBackoffMs',
} as const satisfies Record<string, keyof BatchingProducerOptions>;

const CONSUMER_INTEGER_KEYS = {
  'fetch.max.wait.ms': 'maxWaitMs',
  'fetch.min.bytes': 'minBytes',
  'fetch.max.bytes': 'maxBytes',
  'max.partition.fetch.bytes': 'partitionMaxBytes',
} as const satisfies Record<string, keyof ConsumerOptions>;

function nonNegativeInteger(key: string, raw: string): number {
  const value = raw.trim();
  if (!/^\d+$/.test(value)) throw new ClientConfigError(`${key} must be a non-negative integer, not '${raw}'`);
  return Number(value);
}

/** The keys of a client configuration that say how to connect (`clientSecurity`), not how to produce or consume. */
export function isSecurityKey(key: string): boolean {
  return /^(security\.protocol|sasl\.|ssl\.)/.test(key);
}

export function sluiceProducerConfig(props: ReadonlyMap<string, string>): SluiceClientConfig<BatchingProducerOptions> {
  const producer: { -readonly [K in keyof BatchingProducerOptions]: BatchingProducerOptions[K] } = {};
  const ignored: string[] = [];
  for (const [key, raw] of props) {
    const value = raw.trim();
    if (key in PRODUCER_INTEGER_KEYS) {
      producer[PRODUCER_INTEGER_KEYS[key as keyof typeof PRODUCER_INTEGER_KEYS]] = nonNegativeInteger(key, raw);
    } else if (key === 'acks') {
      const acks = value === 'all' ? -1 : Number(value);
      if (acks !== -1 && acks !== 0 && acks !== 1) throw new ClientConfigError(`acks must be all, -1, 0 or 1, not '${raw}'`);
      producer.acks = acks;
    } else if (key === 'compression.type') {
      if (!isCompressionName(value)) throw new ClientConfigError(`compression.type '${raw}' is not none, gzip, snappy, lz4 or zstd`);
      producer.compression = compressionType(value);
    } else if (!isSecurityKey(key)) {
      ignored.push(key);
    }
  }
  return { options: producer, security: clientSecurity(props), ignored };
}

export function sluiceConsumerConfig(props: ReadonlyMap<string, string>): SluiceClientConfig<ConsumerOptions> {
  const consumer: { -readonly [K in keyof ConsumerOptions]: ConsumerOptions[K] } = {};
  const ignored: string[] = [];
  for (const [key, raw] of props) {
    if (key in CONSUMER_INTEGER_KEYS)
      consumer[CONSUMER_INTEGER_KEYS[key as keyof typeof CONSUMER_INTEGER_KEYS]] = nonNegativeInteger(key, raw);
    else if (!isSecurityKey(key)) ignored.push(key);
  }
  return { options: consumer, security: clientSecurity(props), ignored };
}
