/**
 * Crash-test writer, run as a child process by crash.test.ts: appends batches to one partition
 * through a LogManager, forever, and prints `<base offset> <seed>` to stdout after each append
 * returns (the acknowledgement). Killed with SIGKILL by the test.
 * Usage: node append-child-fixture.js <log dir> <timestamp ms>
 */
import { writeSync } from 'node:fs';
import { LogManager } from '../../../src/storage/index.js';
import { producedBatch } from '../../unit/storage/storage-fixtures.js';

const [logDir, timestampText] = process.argv.slice(2);
if (logDir === undefined || timestampText === undefined) throw new Error('usage: append-child <log dir> <timestamp>');
const timestamp = Number(timestampText);
const manager = LogManager.open({ logDirs: [logDir], defaultConfig: undefined });
const log = manager.getOrCreateLog(
  { topic: 'crash', partition: 0 },
  { config: { 'segment.bytes': 64 * 1024, 'index.interval.bytes': 512 } },
);
for (let seed = 0; ; seed++) {
  const result = log.append(producedBatch(1 + (seed % 5), 50 + ((seed * 37) % 900), timestamp, seed), { leaderEpoch: 1 });
  log.highWatermark = log.logEndOffset;
  writeSync(1, `${result.baseOffset} ${seed}\n`);
  if (seed % 50 === 0) manager.maintain();
  if (seed % 200 === 0) manager.checkpoint();
}
