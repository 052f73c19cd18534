import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  LocalProducerIdBlocks,
  PRODUCER_IDS_FILE,
  ProducerIdManager,
  type ProducerIdBlock,
} from '../../../src/coordinator/producer-id-manager.js';

test('ids are unique across restarts, and the persisted block is ahead of every id handed out', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-pid-'));
  try {
    const first = new ProducerIdManager(new LocalProducerIdBlocks(dir));
    const ids: bigint[] = [];
    for (let i = 0; i < 1500; i++) ids.push(await first.nextProducerId());
    assert.equal(new Set(ids).size, 1500);
    assert.equal(ids[0], 0n);
    assert.match(readFileSync(join(dir, PRODUCER_IDS_FILE), 'utf8'), /^next_block_start=2000\n$/);
    const second = new ProducerIdManager(new LocalProducerIdBlocks(dir));
    assert.equal(await second.nextProducerId(), 2000n, 'a restart skips the rest of the persisted block');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('callers that arrive during an allocation share it, and a failed allocation is retried by the next caller', async () => {
  const allocations: Array<(block: ProducerIdBlock) => void> = [];
  let fail = true;
  const manager = new ProducerIdManager({
    allocate: () => {
      if (fail) {
        fail = false;
        return Promise.reject(new Error('ZooKeeper unreachable'));
      }
      return new Promise((resolve) => allocations.push(resolve));
    },
  });
  await assert.rejects(manager.nextProducerId(), /ZooKeeper unreachable/);
  const waiting = Array.from({ length: 5 }, () => manager.nextProducerId());
  await new Promise((r) => setImmediate(r));
  assert.equal(allocations.length, 1, 'one allocation for five callers');
  allocations[0]!({ firstId: 7000n, size: 3n });
  await new Promise((r) => setImmediate(r));
  assert.equal(allocations.length, 2, 'the block of three ran out: one more allocation for the other two');
  allocations[1]!({ firstId: 9000n, size: 1000n });
  const ids = (await Promise.all(waiting)).sort((a, b) => (a < b ? -1 : 1));
  assert.deepEqual(ids, [7000n, 7001n, 7002n, 9000n, 9001n]);
});
