import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PRODUCER_IDS_FILE, ProducerIdManager } from '../../../src/coordinator/producer-id-manager.js';

test('ids are unique across restarts, and the persisted block is ahead of every id handed out', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sluice-pid-'));
  try {
    const first = ProducerIdManager.open(dir);
    const ids = Array.from({ length: 1500 }, () => first.nextProducerId());
    assert.equal(new Set(ids).size, 1500);
    assert.equal(ids[0], 0n);
    assert.match(readFileSync(join(dir, PRODUCER_IDS_FILE), 'utf8'), /^next_block_start=2000\n$/);
    const second = ProducerIdManager.open(dir);
    assert.equal(second.nextProducerId(), 2000n, 'a restart skips the rest of the persisted block');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
