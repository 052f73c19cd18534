/**
 * The acks=all purgatory: a wait is registered before its append is sent and answered by the
 * leader's completion, whether that arrives before the produce parks or after; the request is
 * answered when all its waits are, or REQUEST_TIMED_OUT at its timeout; a lost worker's waits
 * answer KAFKA_STORAGE_ERROR; shutdown answers everything. No leader is ever asked.
 */
import { NO_OFFSET, offsetOf } from '@sluice/protocol/common/offsets.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { ProducePurgatory } from '../../../src/partitions/produce-purgatory.js';

const { NONE, REQUEST_TIMED_OUT, NOT_LEADER_OR_FOLLOWER, KAFKA_STORAGE_ERROR, NOT_ENOUGH_REPLICAS_AFTER_APPEND } = ErrorCode;
const turn = () => new Promise((resolve) => setImmediate(resolve));
const LONG = 60_000;

/** A promise's state after the pending turns have run. */
async function settled<T>(p: Promise<T>): Promise<{ done: boolean; value?: T }> {
  let state: { done: boolean; value?: T } = { done: false };
  void p.then((value) => (state = { done: true, value }));
  await turn();
  return state;
}

test('registered waits are answered by their completions, all together, in request order', async () => {
  const purgatory = new ProducePurgatory();
  const a = purgatory.register('t', 0);
  const b = purgatory.register('t', 1);
  assert.notEqual(a, b);
  const parked = purgatory.wait([a, b], LONG);
  purgatory.complete([{ id: b, errorCode: NOT_ENOUGH_REPLICAS_AFTER_APPEND }]);
  assert.equal((await settled(parked)).done, false, 'one of two answered');
  assert.equal(purgatory.waiting, 1);
  purgatory.complete([{ id: a, errorCode: NONE }]);
  assert.deepEqual(await parked, [NONE, NOT_ENOUGH_REPLICAS_AFTER_APPEND]);
  assert.equal(purgatory.waiting, 0);
});

test('a completion that arrives before the produce parks is kept for it: the wait answers at once', async () => {
  const purgatory = new ProducePurgatory();
  const early = purgatory.register('t', 0);
  const late = purgatory.register('t', 1);
  // Another op's reply (a follower's fetch) carried it while the append's own reply was on its way.
  purgatory.complete([{ id: early, errorCode: NONE }]);
  const parked = purgatory.wait([early, late], LONG);
  purgatory.complete([{ id: late, errorCode: NOT_LEADER_OR_FOLLOWER }]);
  assert.deepEqual(await parked, [NONE, NOT_LEADER_OR_FOLLOWER]);
  const alone = purgatory.register('t', 2);
  purgatory.complete([{ id: alone, errorCode: NONE }]);
  assert.deepEqual((await settled(purgatory.wait([alone], LONG))).value, [NONE], 'answered without a timer');
  assert.equal(purgatory.waiting, 0);
});

test('a second completion of the same wait, or one for an unknown wait, changes nothing', async () => {
  const purgatory = new ProducePurgatory();
  const id = purgatory.register('t', 0);
  purgatory.complete([
    { id, errorCode: NONE },
    { id, errorCode: NOT_LEADER_OR_FOLLOWER },
    { id: id + 1000, errorCode: NONE },
  ]);
  assert.deepEqual(await purgatory.wait([id], LONG), [NONE], 'the first answer stands');
});

test('settle parks only the appends whose replies ask to wait and cancels the other registrations', async () => {
  const purgatory = new ProducePurgatory();
  const waiting = purgatory.register('t', 0);
  const committed = purgatory.register('t', 1);
  const failed = purgatory.register('t', 2);
  const replies = [
    { errorCode: NONE, requiredOffset: offsetOf(5) },
    { errorCode: NONE, requiredOffset: NO_OFFSET },
    { errorCode: ErrorCode.NOT_ENOUGH_REPLICAS, requiredOffset: NO_OFFSET },
    { errorCode: NONE, requiredOffset: NO_OFFSET },
  ];
  const answers = purgatory.settle([waiting, committed, failed, undefined], replies, LONG);
  assert.equal(purgatory.waiting, 1, 'only the one that waits is left');
  purgatory.complete([{ id: waiting, errorCode: NONE }]);
  assert.deepEqual(await answers, [NONE, null, null, null]);
  assert.deepEqual(
    await purgatory.settle([undefined], [{ errorCode: NONE, requiredOffset: offsetOf(3n) }], LONG),
    [null],
    'an entry without a wait has nothing to wait for',
  );
});

test('waits still unanswered at the timeout answer REQUEST_TIMED_OUT; a completion after it is ignored', async () => {
  const purgatory = new ProducePurgatory();
  const done = purgatory.register('t', 0);
  const stuck = purgatory.register('t', 1);
  const parked = purgatory.wait([done, stuck], 20);
  purgatory.complete([{ id: done, errorCode: NONE }]);
  assert.deepEqual(await parked, [NONE, REQUEST_TIMED_OUT]);
  assert.equal(purgatory.waiting, 0);
  purgatory.complete([{ id: stuck, errorCode: NONE }]);
  assert.equal(purgatory.waiting, 0);
});

test("a lost worker's waits answer KAFKA_STORAGE_ERROR, parked or not yet; the other workers' waits go on", async () => {
  const purgatory = new ProducePurgatory();
  const parkedOnLost = purgatory.register('t', 0);
  const elsewhere = purgatory.register('t', 1);
  const notYetParked = purgatory.register('u', 0);
  const parked = purgatory.wait([parkedOnLost, elsewhere], LONG);
  purgatory.failWhere((_topic, partition) => partition === 0, KAFKA_STORAGE_ERROR);
  assert.equal((await settled(parked)).done, false, 'partition 1 still waits');
  purgatory.complete([{ id: elsewhere, errorCode: NONE }]);
  assert.deepEqual(await parked, [KAFKA_STORAGE_ERROR, NONE]);
  assert.deepEqual(await purgatory.wait([notYetParked], LONG), [KAFKA_STORAGE_ERROR]);
});

test('shutdown answers every parked produce now, and any parked after it, REQUEST_TIMED_OUT', async () => {
  const purgatory = new ProducePurgatory();
  const parkedId = purgatory.register('t', 0);
  const registered = purgatory.register('t', 1);
  const parked = purgatory.wait([parkedId], LONG);
  purgatory.close();
  assert.deepEqual((await settled(parked)).value, [REQUEST_TIMED_OUT]);
  assert.deepEqual((await settled(purgatory.wait([registered], LONG))).value, [REQUEST_TIMED_OUT], 'its append was on its way at shutdown');
  const after = purgatory.register('t', 2);
  assert.deepEqual((await settled(purgatory.wait([after], LONG))).value, [REQUEST_TIMED_OUT]);
  assert.equal(purgatory.waiting, 0);
});

test('cancelled waits are forgotten; ids stay unique while registered', async () => {
  const purgatory = new ProducePurgatory();
  const ids = new Set(Array.from({ length: 1000 }, (_, i) => purgatory.register('t', i % 7)));
  assert.equal(ids.size, 1000);
  for (const id of ids) purgatory.cancel(id);
  assert.equal(purgatory.waiting, 0);
  await assert.rejects(purgatory.wait([[...ids][0]!], LONG), /not registered/, 'a cancelled wait cannot be parked');
});
