// The dead-letter writer against an in-memory cluster: the records it appends (headers, copied key
// and value, write time), where (source partition mod partitions), the topic it creates, the
// rules that stop it (logged and counted, never thrown), the retries, a resumed run that skips
// what a leader before already wrote, and runs split to fit max.message.bytes.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '@sluice/protocol/errors.js';
import {
  encodeRecordBatch,
  lastOffsetOf,
  readBatchHeader,
  readRecords,
  setBaseOffset,
  type BatchHeader,
  type DecodedRecord,
} from '@sluice/protocol/records/index.js';
import { Logger } from '../../../../../src/common/logger.js';
import {
  DeadLetterWriter,
  batchesWithin,
  type DeadLetterCluster,
  type DeadLetterTopic,
} from '../../../../../src/coordinator/share/partition/dead-letter-writer.js';
import type { DeadLetterSettings } from '../../../../../src/coordinator/share/partition/dead-letter-rules.js';
import type { DeadLetterRange } from '../../../../../src/coordinator/share/partition/dead-letter.js';
import type { SharePartitionKey } from '../../../../../src/coordinator/share/share-state-persister.js';
import { DEFAULT_SHARE_PARTITION_CONFIG } from '../../../../../src/coordinator/share/partition/share-partition-config.js';
import { AcknowledgeType, SharePartition } from '../../../../../src/coordinator/share/partition/share-partition.js';
import { TestSharePersister } from '../../../../helpers/share-persister.js';
import { ManualTimers } from '../../../../helpers/manual-lock-timers.js';
import { waitFor, when } from '../../../../helpers/wait-for.js';

const SOURCE_ID = 'AAAAAAAAAAAAAAAAAAAAAQ';
const NOW = 1_700_000_000_000;

/** The header of the one batch in `buf`. */
function header(buf: Buffer): BatchHeader {
  return readBatchHeader(buf, 0)!;
}

/** A partition's log: batches with their offsets assigned. */
class MemoryLog {
  readonly batches: Buffer[] = [];
  end = 0n;

  append(batch: Buffer): void {
    const copy = Buffer.from(batch);
    setBaseOffset(copy, 0, this.end);
    this.end = lastOffsetOf(header(copy)) + 1n;
    this.batches.push(copy);
  }

  records(): DecodedRecord[] {
    return this.batches.flatMap((b) => [...readRecords(b, header(b))]);
  }
}

class FakeCluster implements DeadLetterCluster {
  readonly topics = new Map<string, DeadLetterTopic & { logs: MemoryLog[]; configs: ReadonlyMap<string, string> }>();
  group: DeadLetterSettings = { topic: 'dlq.g', copyRecord: false, prefix: 'dlq.', autoCreate: false };
  /** Error codes the next appends answer, in order. */
  readonly appendFailures: number[] = [];
  readonly sleeps: number[] = [];

  addTopic(name: string, partitions: number, enabled = true, maxMessageBytes = 1_048_588): MemoryLog[] {
    const logs = Array.from({ length: partitions }, () => new MemoryLog());
    this.topics.set(name, { partitions, enabled, maxMessageBytes, logs, configs: new Map() });
    return logs;
  }

  settings = (): DeadLetterSettings => this.group;
  topicName = (topicId: string): string | null => (topicId === SOURCE_ID ? 'orders' : null);
  topic = (name: string): DeadLetterTopic | null => this.topics.get(name) ?? null;
  createTopic = async (name: string, configs: ReadonlyMap<string, string>) => {
    this.addTopic(name, 2);
    this.topics.get(name)!.configs = configs;
    return { errorCode: ErrorCode.NONE, errorMessage: null };
  };
  append = async (topic: string, partition: number, batch: Buffer): Promise<number> => {
    const failure = this.appendFailures.shift();
    if (failure !== undefined) return failure;
    this.topics.get(topic)!.logs[partition]!.append(batch);
    return ErrorCode.NONE;
  };
  logStartOffset = async () => ({ errorCode: ErrorCode.NONE, offset: 0n });
  read = async (topic: string, partition: number, offset: bigint) => {
    const log = this.topics.get(topic)!.logs[partition]!;
    if (offset > log.end) return { errorCode: ErrorCode.OFFSET_OUT_OF_RANGE, bytes: Buffer.alloc(0), logEndOffset: log.end };
    const from = log.batches.filter((b) => lastOffsetOf(header(b)) >= offset);
    return { errorCode: ErrorCode.NONE, bytes: Buffer.concat(from), logEndOffset: log.end };
  };
  sleep = async (ms: number): Promise<void> => {
    this.sleeps.push(ms);
  };
  now = (): number => NOW;
}

function setup() {
  const cluster = new FakeCluster();
  const counts: Array<[string, number, boolean]> = [];
  const writer = new DeadLetterWriter(cluster, new Logger('test'), (group, written, failed) => counts.push([group, written, failed]));
  return { cluster, counts, writer };
}

const key = (partition: number): SharePartitionKey => ({ groupId: 'g', topicId: SOURCE_ID, partition });
const range = (firstOffset: bigint, lastOffset: bigint, over: Partial<DeadLetterRange> = {}): DeadLetterRange => ({
  firstOffset,
  lastOffset,
  deliveryCount: 1,
  cause: 'rejected',
  resumed: false,
  ...over,
});

const headerText = (r: DecodedRecord): Record<string, string> =>
  Object.fromEntries(r.headers.map((h) => [h.key, h.value?.toString('utf8') ?? '']));

describe('DeadLetterWriter', () => {
  test('one record per offset, headers only by default, on source partition mod partitions, stamped with the write time', async () => {
    const { cluster, counts, writer } = setup();
    const dlq = cluster.addTopic('dlq.g', 2);
    await writer.write(key(3), range(7n, 8n, { deliveryCount: 4, cause: 'delivery-count-exceeded' }));
    assert.equal(dlq[0]!.records().length, 0);
    const written = dlq[1]!.records();
    assert.deepEqual(
      written.map((r) => [r.key, r.value, r.timestamp, headerText(r)]),
      [7, 8].map((offset) => [
        null,
        null,
        BigInt(NOW),
        {
          '__dlq.errors.topic': 'orders',
          '__dlq.errors.partition': '3',
          '__dlq.errors.offset': String(offset),
          '__dlq.errors.group': 'g',
          '__dlq.errors.delivery.count': '4',
          '__dlq.errors.message': 'Offset delivery count exceeded the threshold.',
        },
      ]),
    );
    assert.deepEqual(counts, [['g', 2, false]]);
  });

  test('with copy.record.enable the source key and value are copied; the original headers are not (as in Kafka)', async () => {
    const { cluster, writer } = setup();
    cluster.group = { ...cluster.group, copyRecord: true };
    const dlq = cluster.addTopic('dlq.g', 1);
    const [source] = cluster.addTopic('orders', 1);
    source!.append(
      encodeRecordBatch({
        records: [0, 1, 2].map((i) => ({
          key: Buffer.from(`k${i}`),
          value: Buffer.from(`v${i}`),
          headers: [{ key: 'h', value: Buffer.from('x') }],
          timestamp: 1n,
        })),
      }),
    );
    await writer.write(key(0), range(1n, 2n));
    assert.deepEqual(
      dlq[0]!.records().map((r) => [r.key?.toString(), r.value?.toString(), r.headers.map((h) => h.key).includes('h')]),
      [
        ['k1', 'v1', false],
        ['k2', 'v2', false],
      ],
    );
  });

  test('a rule broken is logged and counted as a failure, and nothing is written; a missing topic is created when the cluster allows it', async () => {
    const { cluster, counts, writer } = setup();
    await writer.write(key(0), range(0n, 0n));
    assert.deepEqual(counts, [['g', 0, true]], 'missing topic, no auto-creation');
    cluster.group = { ...cluster.group, autoCreate: true };
    await writer.write(key(0), range(0n, 0n));
    const created = cluster.topics.get('dlq.g')!;
    assert.deepEqual(
      [...created.configs],
      [
        ['errors.deadletterqueue.group.enable', 'true'],
        ['message.timestamp.type', 'CreateTime'],
      ],
    );
    assert.equal(created.logs[0]!.records().length, 1);
    cluster.topics.set('dlq.g', { ...created, enabled: false });
    await writer.write(key(0), range(1n, 1n));
    assert.deepEqual(counts.at(-1), ['g', 0, true], 'a topic without errors.deadletterqueue.group.enable');
  });

  test("an append is tried Kafka's 5 times, 1 s apart and doubling, then given up", async () => {
    const { cluster, counts, writer } = setup();
    const dlq = cluster.addTopic('dlq.g', 1);
    cluster.appendFailures.push(ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.NOT_LEADER_OR_FOLLOWER);
    await writer.write(key(0), range(0n, 0n));
    assert.equal(dlq[0]!.records().length, 1);
    assert.deepEqual(cluster.sleeps, [1000, 2000]);
    cluster.appendFailures.push(...Array<number>(5).fill(ErrorCode.NOT_LEADER_OR_FOLLOWER));
    await writer.write(key(0), range(1n, 1n));
    assert.deepEqual(counts, [
      ['g', 1, false],
      ['g', 0, true],
    ]);
  });

  test('a resumed run skips the offsets the dead-letter partition already holds for this group and partition', async () => {
    const { cluster, counts, writer } = setup();
    const dlq = cluster.addTopic('dlq.g', 1);
    await writer.write(key(0), range(0n, 1n));
    await writer.write({ ...key(0), groupId: 'other' }, range(2n, 2n));
    cluster.group = { ...cluster.group };
    await writer.write(key(0), range(0n, 3n, { resumed: true }));
    assert.deepEqual(
      dlq[0]!.records().map((r) => `${headerText(r)['__dlq.errors.group']}:${headerText(r)['__dlq.errors.offset']}`),
      ['g:0', 'g:1', 'other:2', 'g:2', 'g:3'],
    );
    assert.deepEqual(counts.at(-1), ['g', 2, false]);
  });

  test('a leader that dies between the dead letter and ARCHIVED: the next leader writes none of them twice', async () => {
    const { cluster, writer } = setup();
    const dlq = cluster.addTopic('dlq.g', 1);
    const persister = new TestSharePersister();
    await persister.initialize(key(0), 0, 0n);
    const config = () => ({ ...DEFAULT_SHARE_PARTITION_CONFIG, deadLetterQueue: true });
    const open = async (leaderEpoch: number, queue: { write: DeadLetterWriter['write'] }) => {
      const sp = new SharePartition(key(0), leaderEpoch, persister, config, new ManualTimers(), () => undefined, queue);
      await sp.initialize(async () => 0n);
      return sp;
    };
    let old: SharePartition | null = null;
    // The old leader's write lands, then the leader is gone before it can persist ARCHIVED.
    old = await open(0, { write: async (k, r) => (await writer.write(k, r), old!.close()) });
    old.acquire('m', [{ firstOffset: 0n, lastOffset: 2n, producerId: -1n, isTransactional: false, isControl: false }], {
      maxRecords: 10,
      strictRecordLimit: false,
      abortedTransactions: null,
    });
    await old.acknowledge(
      'm',
      [{ firstOffset: 0n, lastOffset: 2n, acknowledgeTypes: [AcknowledgeType.REJECT, AcknowledgeType.REJECT, AcknowledgeType.ACCEPT] }],
      false,
    );
    await waitFor('the old leader wrote its dead letters', 5000, () => when(dlq[0]!.records().length === 2), 2);
    assert.equal(old.stateOf(0n)?.state, 'ARCHIVING', 'never archived: the leader went away first');

    const next = await open(1, writer);
    await waitFor('the new leader archived them', 5000, () => when(next.start === 3n), 2);
    assert.deepEqual(
      dlq[0]!.records().map((r) => headerText(r)['__dlq.errors.offset']),
      ['0', '1'],
    );
  });

  test('a run that does not fit max.message.bytes goes out in several batches; a record too large alone goes alone', () => {
    const records = Array.from({ length: 10 }, (_, i) => ({ key: null, value: Buffer.alloc(100, i), timestamp: 1n }));
    const whole = batchesWithin(records, 1_000_000);
    assert.equal(whole.length, 1);
    const split = batchesWithin(records, 400);
    assert.ok(split.length > 1 && split.every((b) => b.length <= 400 || header(b).lastOffsetDelta === 0));
    assert.equal(
      split.reduce((n, b) => n + [...readRecords(b, header(b))].length, 0),
      10,
    );
    assert.deepEqual(batchesWithin([], 400), []);
  });
});
