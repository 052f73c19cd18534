/**
 * A coordinator's replay of its partition on a leader new to it: every record of the leader's log
 * is replayed, those above its (lagging) high watermark too, and the replay ends only once the
 * log end is committed at the leader's epoch; a replay whose records do not commit in time says
 * the coordinator is still loading.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { encodeRecordBatch, setBaseOffset } from '@sluice/protocol/records/index.js';
import { InternalTopicLog, type InternalTopicPartitions } from '../../../../src/coordinator/runtime/coordinator-log.js';

const LEADER_EPOCH = 4;

/** A leader's log of batches of one record each (key `k<i>`); `commit` answers the wait for its end. */
function leaderLog(count: number, commit: (offset: bigint) => number): InternalTopicPartitions & { readonly committedWaits: bigint[] } {
  const batches = Array.from({ length: count }, (_, i) => {
    const batch = encodeRecordBatch({ records: [{ key: Buffer.from(`k${i}`), value: Buffer.from(`v${i}`), timestamp: 0n }] });
    setBaseOffset(batch, 0, BigInt(i));
    return batch;
  });
  const committedWaits: bigint[] = [];
  return {
    committedWaits,
    exists: () => true,
    create: () => Promise.resolve({ errorCode: ErrorCode.NONE, errorMessage: null }),
    append: () => Promise.reject(new Error('a replay appends nothing')),
    appendMarker: () => Promise.reject(new Error('a replay appends no marker')),
    logStartOffset: () => Promise.resolve({ errorCode: ErrorCode.NONE, offset: 0n }),
    read: (_partition, offset) =>
      Promise.resolve({
        errorCode: ErrorCode.NONE,
        logEndOffset: BigInt(count),
        leaderEpoch: LEADER_EPOCH,
        // Two batches per read, to replay in several chunks.
        bytes: Buffer.concat(batches.slice(Number(offset), Number(offset) + 2)),
      }),
    awaitCommitted: (_partition, leaderEpoch, offset) => {
      assert.equal(leaderEpoch, LEADER_EPOCH);
      committedWaits.push(offset);
      return Promise.resolve(commit(offset));
    },
  };
}

const IGNORE = { record: () => undefined, marker: () => undefined };
const spec = { name: '__consumer_offsets', numPartitions: 1, configs: new Map<string, string>() };

test('a replay reads the leader’s whole log (its high watermark may lag it), then waits for the log end to be committed', async () => {
  const partitions = leaderLog(5, () => ErrorCode.NONE);
  const keys: string[] = [];
  const code = await new InternalTopicLog(spec, partitions).replay(0, {
    record: (key) => keys.push(key.toString()),
    marker: () => assert.fail('no markers here'),
  });
  assert.equal(code, ErrorCode.NONE);
  assert.deepEqual(keys, ['k0', 'k1', 'k2', 'k3', 'k4'], 'every record to the log end');
  assert.deepEqual(partitions.committedWaits, [5n], 'the shard serves once the log end is committed');
});

test('an empty partition waits for nothing but its empty log end; a log end that does not commit fails the load', async () => {
  const empty = leaderLog(0, () => ErrorCode.NONE);
  assert.equal(await new InternalTopicLog(spec, empty).replay(0, IGNORE), ErrorCode.NONE);
  assert.deepEqual(empty.committedWaits, [0n]);
  const stuck = leaderLog(3, () => ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
  assert.equal(await new InternalTopicLog(spec, stuck).replay(0, IGNORE), ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
});

test('an operation arriving while the topic is being created waits for the creation, though the topic already shows in the metadata', async () => {
  let inMetadata = false;
  let finish: () => void = () => undefined;
  const partitions: InternalTopicPartitions = {
    ...leaderLog(0, () => ErrorCode.NONE),
    exists: () => inMetadata,
    create: () => {
      inMetadata = true;
      return new Promise((resolve) => (finish = () => resolve({ errorCode: ErrorCode.NONE, errorMessage: null })));
    },
  };
  const log = new InternalTopicLog(spec, partitions);
  let firstDone = false;
  let secondDone = false;
  const first = log.ensureTopic().then(() => (firstDone = true));
  const second = log.ensureTopic().then(() => (secondDone = true));
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual([firstDone, secondDone], [false, false], 'the topic is in the metadata, its partitions not open yet');
  finish();
  await Promise.all([first, second]);
  await log.ensureTopic();
});
