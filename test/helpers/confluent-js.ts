/**
 * Loads @confluentinc/kafka-javascript (librdkafka 2.15 behind a KafkaJS-compatible API) for the
 * interop and consumer group tests. It is an optional dependency: it builds only with
 * CKJS_LINKING=dynamic and the Debian -dev packages that .ci/run installs, and npm drops it
 * where the build fails. So it is imported by a non-literal name (tsc must compile the tests
 * without it) and typed by the small surface below; the tests skip with `CONFLUENT_JS_SKIP`.
 */
import type { IHeaders, Message } from 'kafkajs';
import type { Header, ReadRecord } from './interop-records.js';

export interface CkTopicPartition {
  topic: string;
  partition: number;
}

export interface CkRecordMetadata {
  topicName: string;
  partition: number;
  errorCode: number;
  baseOffset?: string;
}

export interface CkProducer {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  /** The messages are KafkaJS-shaped (the package copies KafkaJS's Message type). */
  send(record: { topic: string; messages: Message[] }): Promise<CkRecordMetadata[]>;
}

export interface CkMessage {
  key: Buffer | null;
  value: Buffer | null;
  timestamp: string;
  offset: string;
  headers?: IHeaders;
}

export interface CkEachMessagePayload {
  topic: string;
  partition: number;
  message: CkMessage;
}

export interface CkConsumer {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  subscribe(subscription: { topics: string[] }): Promise<void>;
  run(config: { eachMessage: (payload: CkEachMessagePayload) => Promise<void> }): Promise<void>;
  /** Queues a commit (librdkafka's commitAsync): resolving says nothing of the broker's answer. */
  commitOffsets(offsets: Array<CkTopicPartition & { offset: string }>): Promise<void>;
  assignment(): CkTopicPartition[];
}

export interface CkAdmin {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  createTopics(options: { topics: Array<{ topic: string; numPartitions: number }> }): Promise<boolean>;
  fetchOffsets(options: {
    groupId: string;
    topics: string[];
  }): Promise<Array<{ topic: string; partitions: Array<{ partition: number; offset: string }> }>>;
}

export type CkCompression = 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd';

export interface CkKafka {
  /** Besides the KafkaJS-style block, librdkafka's own properties by name (they take precedence). */
  producer(config: {
    kafkaJS: { acks?: number; compression?: CkCompression; idempotent?: boolean; retry?: { retries: number } };
    'message.timeout.ms'?: number;
  }): CkProducer;
  consumer(config: {
    kafkaJS: { groupId: string; fromBeginning?: boolean; autoCommit?: boolean; sessionTimeout?: number; heartbeatInterval?: number };
  }): CkConsumer;
  admin(): CkAdmin;
}

/** KafkaJS-style SASL settings (mechanism in lower case: plain, scram-sha-256, scram-sha-512). */
export interface CkSasl {
  readonly mechanism: string;
  readonly username: string;
  readonly password: string;
}

interface KafkaJsModule {
  Kafka: new (config: { kafkaJS: { brokers: string[]; logLevel?: number; sasl?: CkSasl } }) => CkKafka;
  logLevel: { NOTHING: number };
}

const PACKAGE = '@confluentinc/kafka-javascript';

async function load(): Promise<{ api: KafkaJsModule } | { skip: string }> {
  try {
    const mod = (await import(PACKAGE)) as { default: { KafkaJS: KafkaJsModule } };
    return { api: mod.default.KafkaJS };
  } catch (e) {
    const why = (e instanceof Error ? e.message : String(e)).split('\n')[0];
    return {
      skip: `${PACKAGE} is not installed (optional; builds only with CKJS_LINKING=dynamic and the -dev packages in .ci/run): ${why}`,
    };
  }
}

const loaded = await load();

/** Why the @confluentinc/kafka-javascript tests cannot run here, or undefined when they can. */
export const CONFLUENT_JS_SKIP: string | undefined = 'skip' in loaded ? loaded.skip : undefined;

/** A client for `bootstrap` with librdkafka's logging silenced; throws when the package is absent. */
export function confluentKafka(bootstrap: string, sasl?: CkSasl): CkKafka {
  if ('skip' in loaded) throw new Error(loaded.skip);
  return new loaded.api.Kafka({
    kafkaJS: { brokers: [bootstrap], logLevel: loaded.api.logLevel.NOTHING, ...(sasl === undefined ? {} : { sasl }) },
  });
}

/**
 * A consumed message in the interop record model. The KafkaJS-style header object groups
 * repeated keys in first-seen order, which is how `kafkajsHeaders` sent them.
 */
export function ckReadRecord(partition: number, m: CkMessage): ReadRecord {
  const hex = (b: Buffer | string): string => Buffer.from(b).toString('hex');
  const headers = Object.entries(m.headers ?? {}).flatMap(([k, v]): Header[] =>
    v === undefined ? [] : (Array.isArray(v) ? v : [v]).map((x): Header => [k, hex(x)]),
  );
  return {
    partition,
    offset: Number(m.offset),
    key: m.key === null ? null : hex(m.key),
    value: m.value === null ? null : hex(m.value),
    headers,
    timestamp: Number(m.timestamp),
  };
}
