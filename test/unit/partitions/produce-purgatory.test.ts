/**
 * The acks=all purgatory: waits checked right after parking, on high watermark moves past them
 * and on state changes; answered together at the end, or REQUEST_TIMED_OUT at the timeout.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '../../../src/protocol/errors.js';
import { ProducePurgatory } from '../../../src/partitions/produce-purgatory.js';
import type { AcksStatus, AcksWait } from '../../../src/partitions/partition-protocol.js';
import { topicPartitionKey } from '../../../src/common/topic-partition.js';

/** Leaders whose high watermarks and errors the test sets; every check is recorded. */
class FakeLeaders {
  readonly highWatermarks = new Map<string, bigint>();
  readonly errors = new Map<string, number>();
  readonly checks: string[][] = [];

  check = async (waits: readonly AcksWait[]): Promise<AcksStatus[]> => {
    this.checks.push(waits.map((w) => `${w.topic}-${w.partition}@${w.requiredOffset}`));
    return waits.map((w) => {
      const key = topicPartitionKey(w.topic, w.partition);
      const error = this.errors.get(key);
      if (error !== undefined) return { done: true, errorCode: error };
      return { done: (this.highWatermarks.get(key) ?? 0n) >= w.requiredOffset, errorCode: ErrorCode.NONE };
    });
  };
}

const wait = (partition: number, requiredOffset: bigint): AcksWait => ({ topic: 't', partition, leaderEpoch: 0, requiredOffset });
const turn = () => new Promise((resolve) => setImmediate(resolve));

test('a wait already satisfied when it parks is answered by the first check (no wake-up can be missed)', async () => {
  const leaders = new FakeLeaders();
  leaders.highWatermarks.set(topicPartitionKey('t', 0), 5n);
  const purgatory = new ProducePurgatory(leaders.check);
  assert.deepEqual(await purgatory.wait([wait(0, 5n)], 10_000), [ErrorCode.NONE]);
  assert.equal(purgatory.waiting, 0);
});

test('high watermark moves check only the waits they may satisfy, together in one check; the request answers when all are done', async () => {
  const leaders = new FakeLeaders();
  const purgatory = new ProducePurgatory(leaders.check);
  const answered = purgatory.wait([wait(0, 3n), wait(1, 2n)], 10_000);
  await turn();
  assert.deepEqual(leaders.checks, [['t-0@3', 't-1@2']], 'checked once right after parking');
  purgatory.highWatermarkMoved(topicPartitionKey('t', 0), 2n);
  await turn();
  assert.equal(leaders.checks.length, 1, 'below the required offset: no check');
  leaders.highWatermarks.set(topicPartitionKey('t', 0), 3n);
  leaders.highWatermarks.set(topicPartitionKey('t', 1), 2n);
  purgatory.highWatermarkMoved(topicPartitionKey('t', 0), 3n);
  purgatory.highWatermarkMoved(topicPartitionKey('t', 1), 2n);
  assert.deepEqual(await answered, [ErrorCode.NONE, ErrorCode.NONE]);
  assert.deepEqual(leaders.checks[1], ['t-0@3', 't-1@2'], 'both moves in one check');
});

test("a state change checks every wait on the partition; the leader's errors are the answer", async () => {
  const leaders = new FakeLeaders();
  const purgatory = new ProducePurgatory(leaders.check);
  const answered = purgatory.wait([wait(0, 3n)], 10_000);
  await turn();
  leaders.errors.set(topicPartitionKey('t', 0), ErrorCode.NOT_LEADER_OR_FOLLOWER);
  purgatory.recheck(topicPartitionKey('t', 0));
  assert.deepEqual(await answered, [ErrorCode.NOT_LEADER_OR_FOLLOWER]);
});

test('at the timeout the waits still pending answer REQUEST_TIMED_OUT beside those done; close answers at once', async () => {
  const leaders = new FakeLeaders();
  leaders.highWatermarks.set(topicPartitionKey('t', 1), 9n);
  leaders.errors.set(topicPartitionKey('t', 2), ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND);
  const purgatory = new ProducePurgatory(leaders.check);
  assert.deepEqual(await purgatory.wait([wait(0, 3n), wait(1, 9n), wait(2, 1n)], 30), [ErrorCode.REQUEST_TIMED_OUT, ErrorCode.NONE, ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND]);
  assert.equal(purgatory.waiting, 0);
  const closing = purgatory.wait([wait(0, 3n)], 60_000);
  purgatory.close();
  assert.deepEqual(await closing, [ErrorCode.REQUEST_TIMED_OUT]);
});
