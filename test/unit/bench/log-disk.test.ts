import { afterEach, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertNoTopicFiles, topicLogBytes, waitUntilRemoved } from '../../../bench/e2e/log-disk.js';

const DELETED = '.0123456789abcdef0123456789abcdef-delete';

describe('a topic in a broker log dir', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-log-disk-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function partition(name: string, files: Record<string, number>): void {
    mkdirSync(join(dir, name));
    for (const [file, size] of Object.entries(files)) writeFileSync(join(dir, name, file), Buffer.alloc(size));
  }

  test('topicLogBytes counts the segment files of its live partitions only', () => {
    partition('t-0', { '00000000000000000000.log': 100, '00000000000000000050.log': 20, '00000000000000000000.index': 4096 });
    partition('t-1', { '00000000000000000000.log': 7, 'leader-epoch-checkpoint': 9 });
    partition(`t-2${DELETED}`, { '00000000000000000000.log': 1000 });
    partition('t-x-0', { '00000000000000000000.log': 1000 });
    partition('tt-0', { '00000000000000000000.log': 1000 });
    assert.equal(topicLogBytes(dir, 't'), 127);
  });

  test('waitUntilRemoved waits for directories awaiting deletion', async () => {
    partition('t-0', {});
    renameSync(join(dir, 't-0'), join(dir, `t-0${DELETED}`));
    setTimeout(() => rmSync(join(dir, `t-0${DELETED}`), { recursive: true }), 200);
    await waitUntilRemoved(dir, 't', 5000);
  });

  test('waitUntilRemoved gives up after its timeout', async () => {
    partition(`t-0${DELETED}`, {});
    await assert.rejects(waitUntilRemoved(dir, 't', 100), /still in/);
  });

  test('assertNoTopicFiles finds any topic with the prefix, live or being deleted', () => {
    partition('other-0', {});
    assertNoTopicFiles([dir], 'bench-growth-');
    partition(`bench-growth-1-2-3${DELETED}`, {});
    assert.throws(() => assertNoTopicFiles([dir], 'bench-growth-'), /bench-growth-1-2-3/);
  });
});
