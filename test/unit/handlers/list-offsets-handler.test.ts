/**
 * The ListOffsets handler over the in-memory partition owner: earliest, latest and max-timestamp
 * offsets, offsets by time, the client's current leader epoch fenced by the partition's replica
 * (FENCED_LEADER_EPOCH behind it, UNKNOWN_LEADER_EPOCH ahead), leader epochs answered from v4,
 * and topics or partitions the cluster does not have.
 */
import { offsetOf } from '@sluice/protocol/common/offsets.js';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { listOffsetsHandler } from '../../../src/handlers/02-list-offsets.js';
import { produceHandler } from '../../../src/handlers/00-produce.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import * as M from '@sluice/protocol/messages/index.js';
import { versions } from './admin-harness.js';
import { batch, dataHarnesses, type DataHarness } from './data-harness.js';

const { NONE, UNKNOWN_TOPIC_OR_PARTITION, FENCED_LEADER_EPOCH, UNKNOWN_LEADER_EPOCH, INVALID_REQUEST } = ErrorCode;
const LATEST = -1n;
const EARLIEST = -2n;
const MAX_TIMESTAMP = -3n;
const EARLIEST_LOCAL = -4n;
const LATEST_TIERED = -5n;
/** The first version carrying the client's current leader epoch and answering the offset's. */
const WITH_EPOCH = 4;

const fresh = dataHarnesses();

async function append(d: DataHarness, topic: string, records: Buffer): Promise<void> {
  const res = await d.call(produceHandler, M.ProduceRequest, M.ProduceResponse, 9, {
    acks: 1,
    timeoutMs: 1000,
    topicData: [{ name: topic, partitionData: [{ index: 0, records }] }],
  });
  assert.equal(res.responses[0]!.partitionResponses[0]!.errorCode, NONE);
}

type Asked = { partitionIndex: number; timestamp: bigint; currentLeaderEpoch?: number };

/** [partition, error, timestamp, offset, leader epoch] of each answer, topic by topic. */
async function listOffsets(d: DataHarness, version: number, topics: Array<{ name: string; partitions: Asked[] }>) {
  const res = await d.call(listOffsetsHandler, M.ListOffsetsRequest, M.ListOffsetsResponse, version, { replicaId: -1, topics });
  return res.topics.map((t) => ({
    topic: t.name,
    answers: t.partitions.map((p) => [p.partitionIndex, p.errorCode, p.timestamp, p.offset, p.leaderEpoch]),
  }));
}

/** The answer for partition 0 of `t`. */
async function one(d: DataHarness, version: number, timestamp: bigint, currentLeaderEpoch?: number) {
  const res = await listOffsets(d, version, [{ name: 't', partitions: [{ partitionIndex: 0, timestamp, currentLeaderEpoch }] }]);
  return res[0]!.answers[0];
}

describe('ListOffsets', () => {
  test('earliest and latest at every version; the leader epoch from v4', async () => {
    const d = fresh();
    await d.createTopic('t');
    await append(d, 't', batch(['a', 'b']));
    await append(d, 't', batch(['c']));
    for (const v of versions(M.ListOffsetsRequest)) {
      const epoch = v >= WITH_EPOCH ? 0 : -1;
      assert.deepEqual(await one(d, v, EARLIEST), [0, NONE, -1n, 0n, epoch], `v${v} earliest`);
      assert.deepEqual(await one(d, v, LATEST), [0, NONE, -1n, 3n, epoch], `v${v} latest`);
    }
  });

  test('earliest follows the log start offset; earliest-local is earliest and latest-tiered none, without tiered storage', async () => {
    const d = fresh();
    await d.createTopic('t');
    await append(d, 't', batch(['a', 'b', 'c']));
    assert.equal((await d.owner.deleteRecords({ topic: 't', partition: 0 }, offsetOf(2n))).errorCode, NONE);
    assert.deepEqual(await one(d, 11, EARLIEST), [0, NONE, -1n, 2n, 0]);
    assert.deepEqual(await one(d, 11, EARLIEST_LOCAL), [0, NONE, -1n, 2n, 0]);
    assert.deepEqual(await one(d, 11, LATEST_TIERED), [0, NONE, -1n, -1n, -1]);
  });

  test('by time: the first record at or after the timestamp; none past the last; the max timestamp the earliest of equals', async () => {
    const d = fresh();
    await d.createTopic('t');
    await append(d, 't', batch(['a', 'b', 'c'], [100n, 500n, 200n]));
    await append(d, 't', batch(['d'], [500n]));
    assert.deepEqual(await one(d, 11, 0n), [0, NONE, 100n, 0n, 0]);
    assert.deepEqual(await one(d, 11, 150n), [0, NONE, 500n, 1n, 0]);
    assert.deepEqual(await one(d, 11, 500n), [0, NONE, 500n, 1n, 0]);
    assert.deepEqual(await one(d, 11, 501n), [0, NONE, -1n, -1n, -1]);
    assert.deepEqual(await one(d, 11, MAX_TIMESTAMP), [0, NONE, 500n, 1n, 0]);
    // Below the log start offset records no longer count.
    await d.owner.deleteRecords({ topic: 't', partition: 0 }, offsetOf(2n));
    assert.deepEqual(await one(d, 11, 150n), [0, NONE, 200n, 2n, 0]);
    assert.deepEqual(await one(d, 11, MAX_TIMESTAMP), [0, NONE, 500n, 3n, 0]);
  });

  test("the current leader epoch is fenced by the partition's replica: behind is FENCED, ahead UNKNOWN, none or equal answered", async () => {
    const d = fresh();
    await d.createTopic('t');
    await append(d, 't', batch(['a']));
    await d.moveLeaderEpoch('t', 0, 5);
    for (const v of versions(M.ListOffsetsRequest).filter((v) => v >= WITH_EPOCH)) {
      assert.deepEqual(await one(d, v, LATEST, 4), [0, FENCED_LEADER_EPOCH, -1n, -1n, -1], `v${v}`);
      assert.deepEqual(await one(d, v, LATEST, 6), [0, UNKNOWN_LEADER_EPOCH, -1n, -1n, -1], `v${v}`);
      assert.deepEqual(await one(d, v, LATEST, 5), [0, NONE, -1n, 1n, 5], `v${v}`);
      assert.deepEqual(await one(d, v, LATEST, -1), [0, NONE, -1n, 1n, 5], `v${v}`);
    }
    // Before v4 a request carries no epoch, so nothing is fenced.
    assert.deepEqual(await one(d, 3, LATEST), [0, NONE, -1n, 1n, -1]);
  });

  test('unknown topics and partitions are UNKNOWN_TOPIC_OR_PARTITION per partition, beside partitions answered', async () => {
    const d = fresh();
    await d.createTopic('t');
    const res = await listOffsets(d, 11, [
      {
        name: 't',
        partitions: [
          { partitionIndex: 0, timestamp: LATEST },
          { partitionIndex: 1, timestamp: LATEST },
          { partitionIndex: -1, timestamp: EARLIEST },
        ],
      },
      { name: 'missing', partitions: [{ partitionIndex: 0, timestamp: LATEST }] },
    ]);
    assert.deepEqual(res, [
      {
        topic: 't',
        answers: [
          [0, NONE, -1n, 0n, 0],
          [1, UNKNOWN_TOPIC_OR_PARTITION, -1n, -1n, -1],
          [-1, UNKNOWN_TOPIC_OR_PARTITION, -1n, -1n, -1],
        ],
      },
      { topic: 'missing', answers: [[0, UNKNOWN_TOPIC_OR_PARTITION, -1n, -1n, -1]] },
    ]);
  });

  test('a partition asked for twice is INVALID_REQUEST, once; a topic named twice is answered once', async () => {
    const d = fresh();
    await d.createTopic('t', 3);
    const res = await listOffsets(d, 9, [
      {
        name: 't',
        partitions: [
          { partitionIndex: 0, timestamp: LATEST },
          { partitionIndex: 1, timestamp: LATEST },
          { partitionIndex: 0, timestamp: EARLIEST },
        ],
      },
      {
        name: 't',
        partitions: [
          { partitionIndex: 2, timestamp: LATEST },
          { partitionIndex: 1, timestamp: LATEST },
        ],
      },
    ]);
    assert.deepEqual(res, [
      {
        topic: 't',
        answers: [
          [0, INVALID_REQUEST, -1n, -1n, -1],
          [1, INVALID_REQUEST, -1n, -1n, -1],
          [2, NONE, -1n, 0n, 0],
        ],
      },
    ]);
  });
});
