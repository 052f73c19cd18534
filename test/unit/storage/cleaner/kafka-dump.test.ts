/**
 * Kafka 4.4.0's DumpLogSegments reads a segment Sluice's cleaner wrote: rewritten and
 * recompressed batches, a delete-horizon batch with a tombstone, valid CRCs, index entries that
 * match. Skipped without Java or Kafka's jars (tools/kafka/fetch-kafka.sh fetches them).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { CompressionType } from '@sluice/protocol/records/index.js';
import { kafkaClasspath } from '../../../../tools/kafka/kafka-release.js';
import { FakeClock, tempDir } from '../storage-fixtures.js';
import { clean, compactedLog, keyedBatch, logDirOf, openManager, readAll } from './cleaner-fixtures.js';
import { javaSkip } from '../../../helpers/requirements.js';

const execFileAsync = promisify(execFile);

test("Kafka's DumpLogSegments reads a cleaned segment: offsets, tombstone, delete horizon, indexes", { skip: javaSkip() }, async () => {
  const root = tempDir('clean-dump');
  const clock = new FakeClock(Date.now());
  const manager = openManager(root.path, clock);
  try {
    const log = compactedLog(manager, { 'index.interval.bytes': 64 });
    for (let round = 0; round < 6; round++) {
      const codec = round % 2 === 1 ? CompressionType.Gzip : CompressionType.None;
      log.append(
        keyedBatch(
          Array.from({ length: 8 }, (_, i) => ({ key: `k${i}`, value: `v${round}-${i}`.repeat(8) })),
          clock.nowMs,
          codec,
        ),
        { leaderEpoch: 3 },
      );
    }
    // Supersedes one record of the last (gzip) batch, which is then rewritten and recompressed.
    log.append(keyedBatch([{ key: 'k1', value: 'newest' }], clock.nowMs), { leaderEpoch: 3 });
    log.append(keyedBatch([{ key: 'k0', value: null }], clock.nowMs), { leaderEpoch: 3 });
    log.highWatermark = log.logEndOffset;
    log.roll();
    await clean(manager);
    const kept = readAll(log).map((r) => r.offset);
    manager.close();

    const stem = join(logDirOf(root.path), '00000000000000000000');
    const files = ['.log', '.index', '.timeindex'].map((ext) => stem + ext).join(',');
    const { stdout } = await execFileAsync(
      'java',
      ['-cp', kafkaClasspath(), 'org.apache.kafka.tools.DumpLogSegments', '--deep-iteration', '--files', files],
      {
        maxBuffer: 16 * 1024 * 1024,
        timeout: 60_000,
      },
    );
    const offsets = [...stdout.matchAll(/^\| offset: (\d+) /gm)].map((m) => Number(m[1]));
    assert.deepEqual(offsets, kept);
    assert.match(stdout, /deleteHorizonMs: OptionalLong\[\d+\]/, 'the tombstone batch shows its delete horizon');
    assert.match(stdout, /count: 6 .*compresscodec: gzip/, 'the gzip batch, rewritten without two records, is gzip again');
    assert.doesNotMatch(stdout, /isvalid: false|Mismatches|not an index entry|Index is corrupt|timestamp mismatch/i);
    assert.ok([...stdout.matchAll(/^offset: \d+ position: \d+$/gm)].length > 0, 'offset index entries dumped');
  } finally {
    root.remove();
  }
});
