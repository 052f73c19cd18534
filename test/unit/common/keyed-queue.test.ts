/** KeyedQueue: one operation at a time per key, in order; other keys run alongside; a failure does not stop the queue. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KeyedQueue } from '../../../src/common/keyed-queue.js';

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

test('operations of one key run one at a time in order; another key is not held up; a failure passes on to the next', async () => {
  const q = new KeyedQueue();
  const events: string[] = [];
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const first = q.run('a', async () => {
    events.push('a1 start');
    await gate;
    events.push('a1 end');
    throw new Error('a1 failed');
  });
  const second = q.run('a', async () => {
    events.push('a2');
    return 2;
  });
  const other = q.run('b', async () => {
    events.push('b1');
    return 'b';
  });
  assert.equal(await other, 'b');
  await tick();
  assert.deepEqual(events, ['a1 start', 'b1'], 'a2 waits for a1; b1 does not');
  release();
  await assert.rejects(first, /a1 failed/);
  assert.equal(await second, 2);
  assert.deepEqual(events, ['a1 start', 'b1', 'a1 end', 'a2']);
});
