/**
 * The main thread's instruments, the Sluice counterparts of Kafka's RequestMetrics (rate,
 * latency and errors per API), BrokerTopicMetrics (messages and bytes in/out per topic) and the
 * produce batch statistics, plus how response bytes left: by sendfile (zero copy) or through
 * the socket's buffers. Names and labels are listed in docs/design/metrics.md.
 *
 * Each broker makes one (`Broker.start`) and hands it to the dispatcher, the handlers (through
 * the request context) and the network layer, on a registry of its own, never prom-client's
 * global one: brokers started in one process count, and their `/metrics` show, only their own.
 *
 * Updates happen once per request, per partition batch or per socket write, never per record.
 * Label objects are cached (per API version, per topic, per error), so an update allocates only
 * what prom-client itself needs to find the series.
 */
import { Counter, Gauge, Histogram, Registry, exponentialBuckets } from './prom-client-core.js';
import { ClientProduceMetrics, type ClientProduceOptions } from './client-produce-metrics.js';

/** Fetch long polls last up to `max_wait_ms` (seconds), so the buckets reach past 30 s. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** 128 B … 8 MiB, four times apart: `message.max.bytes` defaults to about 1 MiB. */
const BATCH_BYTES_BUCKETS = exponentialBuckets(128, 4, 9);
const BATCH_RECORDS_BUCKETS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000];
const REQUEST_BATCHES_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256];

type ApiLabels = { readonly api: string; readonly version: string };
type ErrorLabels = { readonly api: string; readonly error_code: string; readonly error: string };
type TopicLabels = { readonly topic: string };
type QuotaLabels = { readonly quota_type: string; readonly user: string; readonly client_id: string };

/** One client quota sensor as /metrics shows it (Kafka's byte-rate / request-time per user and client id). */
export interface ClientQuotaSensorReading {
  readonly type: string;
  readonly tags: { readonly user: string; readonly clientId: string };
  readonly rate: number;
}

/** `metrics.producer.clients.max` and `metrics.producer.clients.idle.ms` defaults. */
export const DEFAULT_CLIENT_PRODUCE_OPTIONS: ClientProduceOptions = { maxClients: 1000, idleMs: 3_600_000 };

export class BrokerMetrics {
  readonly registry = new Registry();
  /** Produce batches by client id: not on `registry`, merged into a scrape from `snapshot()` (see `scrape.ts`). */
  readonly clientProduce: ClientProduceMetrics;

  constructor(clientProduce: ClientProduceOptions = DEFAULT_CLIENT_PRODUCE_OPTIONS) {
    this.clientProduce = new ClientProduceMetrics(clientProduce);
  }

  private readonly requests = new Counter({
    name: 'sluice_requests_total',
    help: 'Requests served, by API name and version (Kafka RequestsPerSec).',
    labelNames: ['api', 'version'],
    registers: [this.registry],
  });
  private readonly requestSeconds = new Histogram({
    name: 'sluice_request_duration_seconds',
    help: 'Time from a request being decoded to its response being ready, by API name and version (Kafka TotalTimeMs, without queueing and sending).',
    labelNames: ['api', 'version'],
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  private readonly requestErrors = new Counter({
    name: 'sluice_request_errors_total',
    help: 'Non-zero error codes in responses, by API and error (Kafka ErrorsPerSec); a response with several partitions in error counts each.',
    labelNames: ['api', 'error_code', 'error'],
    registers: [this.registry],
  });
  private readonly requestFailures = new Counter({
    name: 'sluice_request_failures_total',
    help: 'Requests that got no response because they failed (malformed, unsupported, or a handler exception): the connection was closed.',
    labelNames: ['api'],
    registers: [this.registry],
  });
  private readonly messagesIn = new Counter({
    name: 'sluice_topic_messages_in_total',
    help: 'Records appended by Produce requests, by topic (Kafka MessagesInPerSec).',
    labelNames: ['topic'],
    registers: [this.registry],
  });
  private readonly bytesIn = new Counter({
    name: 'sluice_topic_bytes_in_total',
    help: 'Record batch bytes appended by Produce requests, by topic (Kafka BytesInPerSec).',
    labelNames: ['topic'],
    registers: [this.registry],
  });
  private readonly bytesOut = new Counter({
    name: 'sluice_topic_bytes_out_total',
    help: 'Record bytes put in Fetch responses, by topic (Kafka BytesOutPerSec).',
    labelNames: ['topic'],
    registers: [this.registry],
  });
  private readonly batchBytes = new Histogram({
    name: 'sluice_produce_batch_size_bytes',
    help: 'Size of each appended produce record batch, in bytes.',
    buckets: BATCH_BYTES_BUCKETS,
    registers: [this.registry],
  });
  private readonly batchRecords = new Histogram({
    name: 'sluice_produce_batch_records',
    help: 'Records in each appended produce record batch.',
    buckets: BATCH_RECORDS_BUCKETS,
    registers: [this.registry],
  });
  private readonly requestBatches = new Histogram({
    name: 'sluice_produce_request_batches',
    help: 'Partition record batches carried by each Produce request.',
    buckets: REQUEST_BATCHES_BUCKETS,
    registers: [this.registry],
  });
  private readonly bytesSent = new Counter({
    name: 'sluice_network_bytes_sent_total',
    help: 'Response bytes handed to the kernel: path="zero_copy" by sendfile from segment files, path="buffered" by socket writes from memory.',
    labelNames: ['path'],
    registers: [this.registry],
  });

  private readonly uncleanLeaderElections = new Counter({
    name: 'sluice_controller_unclean_leader_elections_total',
    help: 'Leaders this broker elected, as controller, from outside the ISR: acknowledged records may have been lost (Kafka UncleanLeaderElectionsPerSec).',
    registers: [this.registry],
  });

  private readonly deadLetterRecords = new Counter({
    name: 'sluice_share_group_dead_letter_records_total',
    help: "Records this broker wrote to a share group's dead-letter topic, by group (Kafka DeadLetterQueueRecordCount, KIP-1191).",
    labelNames: ['group'],
    registers: [this.registry],
  });
  private readonly deadLetterFailures = new Counter({
    name: 'sluice_share_group_dead_letter_failures_total',
    help: 'Runs of records a share group gave up on that could not be written to its dead-letter topic and were archived without it, by group.',
    labelNames: ['group'],
    registers: [this.registry],
  });

  private readonly authentications = new Counter({
    name: 'sluice_authentications_total',
    help: 'SASL authentications and re-authentications by listener, mechanism and result (Kafka successful-/failed-authentication-total and -reauthentication-total).',
    labelNames: ['listener', 'mechanism', 'result', 'reauthentication'],
    registers: [this.registry],
  });
  private readonly expiredConnectionsKilled = new Counter({
    name: 'sluice_expired_connections_killed_total',
    help: 'Connections closed because their SASL session expired (connections.max.reauth.ms) without re-authentication (Kafka expired-connections-killed-count).',
    labelNames: ['listener'],
    registers: [this.registry],
  });
  private readonly quotaThrottleMs = new Counter({
    name: 'sluice_client_quota_throttle_time_ms_total',
    help: "Throttle time given to clients, by quota type (Produce, Fetch, Request) and the quota entity's user and client id tags (Kafka throttle-time).",
    labelNames: ['quota_type', 'user', 'client_id'],
    registers: [this.registry],
  });
  private readonly quotaThrottles = new Counter({
    name: 'sluice_client_quota_throttles_total',
    help: 'Responses whose connection was throttled, by quota type and quota entity tags.',
    labelNames: ['quota_type', 'user', 'client_id'],
    registers: [this.registry],
  });
  private quotaSensors: () => readonly ClientQuotaSensorReading[] = () => [];
  private readonly quotaRate = new Gauge({
    name: 'sluice_client_quota_rate',
    help: 'Measured rate of each client quota sensor over the quota window: bytes/s for Produce and Fetch, percent of one thread for Request (Kafka byte-rate, request-time).',
    labelNames: ['quota_type', 'user', 'client_id'],
    registers: [this.registry],
    collect: () => {
      this.quotaRate.reset();
      for (const s of this.quotaSensors())
        this.quotaRate.set({ quota_type: s.type, user: s.tags.user, client_id: s.tags.clientId }, s.rate);
    },
  });

  private readonly apiLabels = new Map<string, ApiLabels[]>();
  private readonly errorLabels = new Map<string, Map<number, ErrorLabels>>();
  private readonly failureLabels = new Map<string, { readonly api: string }>();
  private readonly topicLabels = new Map<string, TopicLabels>();
  private static readonly ZERO_COPY = { path: 'zero_copy' } as const;
  private static readonly BUFFERED = { path: 'buffered' } as const;

  /** One request answered (or answered with no response, acks=0) after `seconds`. */
  requestServed(api: string, version: number, seconds: number): void {
    const labels = this.labelsOf(api, version);
    this.requests.inc(labels);
    this.requestSeconds.observe(labels, seconds);
  }

  /** One non-zero error code found in a response of `api`; `name` is Kafka's name for it. */
  requestError(api: string, errorCode: number, name: string): void {
    let byCode = this.errorLabels.get(api);
    if (byCode === undefined) this.errorLabels.set(api, (byCode = new Map<number, ErrorLabels>()));
    let labels = byCode.get(errorCode);
    if (labels === undefined) byCode.set(errorCode, (labels = { api, error_code: String(errorCode), error: name }));
    this.requestErrors.inc(labels);
  }

  /** A request that closed its connection instead of being answered. */
  requestFailed(api: string): void {
    let labels = this.failureLabels.get(api);
    if (labels === undefined) this.failureLabels.set(api, (labels = { api }));
    this.requestFailures.inc(labels);
  }

  /** A produce record batch of `bytes` holding `records` records was appended to `topic`. */
  batchAppended(topic: string, bytes: number, records: number): void {
    const labels = this.topicLabelsOf(topic);
    this.messagesIn.inc(labels, records);
    this.bytesIn.inc(labels, bytes);
    this.batchBytes.observe(bytes);
    this.batchRecords.observe(records);
  }

  /** A Produce request carrying `batches` partition batches (appended or not). */
  produceRequest(batches: number): void {
    this.requestBatches.observe(batches);
  }

  /** `bytes` of `topic`'s records went into a Fetch response. */
  bytesFetched(topic: string, bytes: number): void {
    this.bytesOut.inc(this.topicLabelsOf(topic), bytes);
  }

  /** This broker's controller elected an out-of-sync replica. */
  uncleanLeaderElection(): void {
    this.uncleanLeaderElections.inc();
  }

  /** A share partition's run of given-up records went to group `group`'s dead-letter topic (`written` records), or failed to. */
  shareDeadLetters(group: string, written: number, failed: boolean): void {
    if (written > 0) this.deadLetterRecords.inc({ group }, written);
    if (failed) this.deadLetterFailures.inc({ group });
  }

  /** One SASL exchange ended (rare: label objects are not cached). */
  authentication(listener: string, mechanism: string, result: 'success' | 'failure', reauthentication: boolean): void {
    this.authentications.inc({ listener, mechanism, result, reauthentication: String(reauthentication) });
  }

  expiredConnectionKilled(listener: string): void {
    this.expiredConnectionsKilled.inc({ listener });
  }

  /** A connection throttled for `ms` by the quota of `type` whose sensor has these tags. */
  clientQuotaThrottled(type: string, user: string, clientId: string, ms: number): void {
    const labels: QuotaLabels = { quota_type: type, user, client_id: clientId };
    this.quotaThrottleMs.inc(labels, ms);
    this.quotaThrottles.inc(labels);
  }

  /** Where the client quota sensors are read at each scrape. */
  clientQuotaSensors(source: () => readonly ClientQuotaSensorReading[]): void {
    this.quotaSensors = source;
  }

  zeroCopyBytesSent(bytes: number): void {
    this.bytesSent.inc(BrokerMetrics.ZERO_COPY, bytes);
  }

  bufferedBytesSent(bytes: number): void {
    this.bytesSent.inc(BrokerMetrics.BUFFERED, bytes);
  }

  private labelsOf(api: string, version: number): ApiLabels {
    let versions = this.apiLabels.get(api);
    if (versions === undefined) this.apiLabels.set(api, (versions = []));
    return (versions[version] ??= { api, version: String(version) });
  }

  private topicLabelsOf(topic: string): TopicLabels {
    let labels = this.topicLabels.get(topic);
    if (labels === undefined) this.topicLabels.set(topic, (labels = { topic }));
    return labels;
  }
}
