/**
 * The handler harness over an in-memory partition owner, for the Produce, Fetch and ListOffsets
 * tests: topics are created with CreateTopics, so the owner opens their partitions from the
 * controller's registrations as the workers do, and each harness has its own `BrokerMetrics`
 * for the handlers to count into.
 */
import assert from 'node:assert/strict';
import { afterEach } from 'node:test';
import type { PartitionRegistration } from '../../../src/metadata/metadata-image.js';
import { BrokerMetrics } from '../../../src/common/metrics/broker-metrics.js';
import { createTopicsHandler } from '../../../src/handlers/19-create-topics.js';
import type { RegisteredApi } from '../../../src/handlers/handler.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import * as M from '@sluice/protocol/messages/index.js';
import type { MessageCodec } from '@sluice/protocol/primitives/codec-support.js';
import { encodeRecordBatch } from '@sluice/protocol/records/index.js';
import { purgatoryEvents } from '../../../src/partitions/partition-events.js';
import { parseExposition, type Sample } from '../metrics/prometheus-text-helper.js';
import { call, exchange, harness, type Harness, type HarnessOptions } from './admin-harness.js';
import { MemoryPartitions } from './memory-partitions-fixture.js';

/**
 * A factory of fresh harnesses for one test file, each closed after its test; `beforeClose` runs
 * first on each (a check every test must pass, such as every lease released).
 */
export function dataHarnesses(
  beforeClose: (d: DataHarness) => void = () => undefined,
): (
  owner?: MemoryPartitions,
  transactions?: Pick<HarnessOptions, 'groupLog' | 'transactionLog' | 'markers' | 'shares' | 'sharePersister'>,
) => DataHarness {
  const open: DataHarness[] = [];
  afterEach(() => {
    for (const d of open.splice(0)) {
      beforeClose(d);
      d.close();
    }
  });
  return (owner, transactions) => {
    const d = new DataHarness(owner, transactions);
    open.push(d);
    return d;
  };
}

export class DataHarness {
  readonly metrics = new BrokerMetrics();
  readonly h: Harness;

  /**
   * `owner`: the partitions' owner, e.g. `new MemoryPartitions(1)` to be broker 1; its events reach
   * the harness's purgatories. `transactions`: a `__transaction_state` and marker writer for the
   * transaction handlers' tests.
   */
  constructor(
    readonly owner = new MemoryPartitions(),
    transactions: Pick<HarnessOptions, 'groupLog' | 'transactionLog' | 'markers' | 'shares' | 'sharePersister'> = {},
  ) {
    this.h = harness({ partitions: owner, ...transactions });
    // The in-memory owner keeps no ISR changes, so it has no ISR candidates to tell.
    owner.listen(
      purgatoryEvents(this.h.cluster.purgatory, this.h.cluster.producePurgatory, () => undefined),
      this.h.cluster.purgatory,
    );
  }

  /** Creates `name` with `numPartitions` partitions (and topic `configs`); returns its id. */
  async createTopic(name: string, numPartitions = 1, configs: Record<string, string> = {}): Promise<string> {
    const res = await this.call(createTopicsHandler, M.CreateTopicsRequest, M.CreateTopicsResponse, 7, {
      topics: [{ name, numPartitions, replicationFactor: -1, configs: Object.entries(configs).map(([n, value]) => ({ name: n, value })) }],
    });
    assert.equal(res.topics[0]!.errorCode, ErrorCode.NONE, res.topics[0]!.errorMessage ?? '');
    return res.topics[0]!.topicId;
  }

  /** What a leadership change does to a replica: a registration with a later leader epoch. */
  async moveLeaderEpoch(topic: string, partition: number, leaderEpoch: number): Promise<void> {
    await this.assign(topic, partition, { leaderEpoch });
  }

  /**
   * What the controller's LeaderAndIsr does to the owner's replica: the partition's registration
   * with `changes` (leader, replicas, ISR, epochs), as a cluster's controller would send it.
   */
  async assign(topic: string, partition: number, changes: Partial<PartitionRegistration>): Promise<void> {
    const image = this.h.cluster.metadata.topic(topic)!;
    const registration = { ...image.partitions[partition]!, ...changes };
    await this.owner.createPartitions(image, [registration], this.h.cluster.configs.effectiveTopicConfig(image));
  }

  call<ReqIn, Res>(
    handler: RegisteredApi,
    request: MessageCodec<unknown, ReqIn>,
    response: MessageCodec<Res, unknown>,
    version: number,
    body: ReqIn,
  ): Promise<Res> {
    return call(handler, request, response, version, body, this.h.cluster, this.metrics);
  }

  exchange<ReqIn, Res>(
    handler: RegisteredApi,
    request: MessageCodec<unknown, ReqIn>,
    response: MessageCodec<Res, unknown>,
    version: number,
    body: ReqIn,
  ) {
    return exchange(handler, request, response, version, body, this.h.cluster, this.metrics);
  }

  async scrape(): Promise<Sample[]> {
    return parseExposition(await this.metrics.registry.metrics());
  }

  close(): void {
    this.h.close();
  }
}

/** One uncompressed batch of `values`, the i-th record stamped `timestamps[i]` (now by default). */
export function batch(values: readonly string[], timestamps: readonly bigint[] = []): Buffer {
  const now = BigInt(Date.now());
  return encodeRecordBatch({
    records: values.map((v, i) => ({ key: null, value: Buffer.from(v), headers: [], timestamp: timestamps[i] ?? now })),
  });
}
