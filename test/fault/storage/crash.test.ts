import { test } from 'node:test';
import { offsetOf } from '@sluice/protocol/common/offsets.js';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setBaseOffset, setPartitionLeaderEpoch, validateBatches } from '@sluice/protocol/records/index.js';
import { LogManager, type PartitionLog } from '../../../src/storage/index.js';
import { decodeBatches, producedBatch, tempDir } from '../../unit/storage/storage-fixtures.js';

const child = fileURLToPath(new URL('./append-child-fixture.js', import.meta.url));
const root = tempDir('crash');
process.on('exit', root.remove);
const timestamp = Date.now();

interface Ack {
  baseOffset: number;
  seed: number;
}

/** Runs the writer until it has acknowledged `count` batches, then SIGKILLs it mid-append. */
async function runAndKill(logDir: string, count: number): Promise<Ack[]> {
  const proc = spawn(process.execPath, [child, logDir, String(timestamp)], { stdio: ['ignore', 'pipe', 'inherit'] });
  let text = '';
  await new Promise<void>((resolve, reject) => {
    proc.stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (text.split('\n').length > count) {
        proc.kill('SIGKILL');
      }
    });
    proc.on('exit', (code, signal) => (signal === 'SIGKILL' ? resolve() : reject(new Error(`writer exited with ${code}`))));
  });
  // Only whole lines were acknowledged.
  return text
    .split('\n')
    .slice(0, -1)
    .map((line) => {
      const [baseOffset, seed] = line.split(' ').map(Number);
      return { baseOffset: baseOffset!, seed: seed! };
    });
}

function expectedBatch(ack: Ack): Buffer {
  const batch = producedBatch(1 + (ack.seed % 5), 50 + ((ack.seed * 37) % 900), timestamp, ack.seed);
  setBaseOffset(batch, 0, BigInt(ack.baseOffset));
  setPartitionLeaderEpoch(batch, 0, 1);
  return batch;
}

function checkLog(log: PartitionLog, acks: readonly Ack[]): void {
  const last = acks.at(-1)!;
  assert.ok(log.logEndOffset >= last.baseOffset + 1 + (last.seed % 5), `log end ${log.logEndOffset} lost acknowledged data`);
  for (const ack of acks) {
    const expected = expectedBatch(ack);
    const read = log.readBuffer(offsetOf(ack.baseOffset), 1);
    assert.ok(read.equals(expected), `batch at ${ack.baseOffset} differs after recovery`);
  }
  // Everything served is whole, CRC-valid, contiguous batches.
  let offset = log.logStartOffset as number;
  while (offset < log.logEndOffset) {
    const bytes = log.readBuffer(offsetOf(offset), 1 << 20);
    const v = validateBatches(bytes);
    assert.ok(v.ok, 'served bytes are valid batches');
    const batches = decodeBatches(bytes);
    assert.equal(batches[0]!.baseOffset, offset);
    offset = batches.at(-1)!.lastOffset + 1;
  }
  assert.equal(offset, log.logEndOffset);
}

test('kill -9 during appends: every acknowledged batch survives byte for byte, twice in a row', async () => {
  const logDir = join(root.path, 'kill');
  const first = await runAndKill(logDir, 1500);
  let manager = LogManager.open({ logDirs: [logDir] });
  let log = manager.getLog({ topic: 'crash', partition: 0 })!;
  assert.ok(log.segmentCount > 3, `segments: ${log.segmentCount}`);
  checkLog(log, first);
  manager.abandon();
  // The second run continues the same log after recovery, then is killed again.
  const second = await runAndKill(logDir, 800);
  assert.ok(second[0]!.baseOffset >= first.at(-1)!.baseOffset + 1);
  manager = LogManager.open({ logDirs: [logDir] });
  log = manager.getLog({ topic: 'crash', partition: 0 })!;
  checkLog(log, [...first, ...second]);
  manager.close();
});

test('garbage and missing index files are rebuilt, never trusted, even after a clean shutdown', async () => {
  const logDir = join(root.path, 'index');
  const acks = await runAndKill(logDir, 1200);
  let manager = LogManager.open({ logDirs: [logDir] });
  manager.close();
  const dir = join(logDir, 'crash-0');
  const indexes = readdirSync(dir)
    .filter((n) => n.endsWith('.index'))
    .sort();
  assert.ok(indexes.length >= 3);
  writeFileSync(join(dir, indexes[0]!), Buffer.from(Array.from({ length: 64 }, (_, i) => (i * 73 + 11) & 0xff)));
  writeFileSync(join(dir, indexes[1]!.replace('.index', '.timeindex')), Buffer.from([1, 2, 3, 4, 5]));
  for (const name of [indexes[2]!, indexes[2]!.replace('.index', '.timeindex')]) {
    const p = join(dir, name);
    if (existsSync(p)) truncateSync(p, 0);
  }
  const { unlinkSync } = await import('node:fs');
  unlinkSync(join(dir, indexes.at(-1)!));
  manager = LogManager.open({ logDirs: [logDir] });
  const log = manager.getLog({ topic: 'crash', partition: 0 })!;
  checkLog(log, acks);
  manager.close();
  assert.ok(statSync(join(dir, indexes[0]!)).size % 8 === 0);
});

test('a torn tail (log cut mid-batch) is truncated on recovery and never served', async () => {
  const logDir = join(root.path, 'torn');
  const acks = await runAndKill(logDir, 400);
  let manager = LogManager.open({ logDirs: [logDir] });
  const before = manager.getLog({ topic: 'crash', partition: 0 })!;
  const end = before.logEndOffset;
  manager.abandon();
  const dir = join(logDir, 'crash-0');
  const active = readdirSync(dir)
    .filter((n) => n.endsWith('.log'))
    .sort()
    .at(-1)!;
  const size = statSync(join(dir, active)).size;
  truncateSync(join(dir, active), size - 30);
  manager = LogManager.open({ logDirs: [logDir] });
  const log = manager.getLog({ topic: 'crash', partition: 0 })!;
  assert.ok(log.logEndOffset < end, 'the cut batch is gone');
  const kept = acks.filter((a) => a.baseOffset < log.logEndOffset);
  assert.equal(kept.length, acks.filter((a) => a.baseOffset + 1 + (a.seed % 5) <= log.logEndOffset).length);
  checkLog(log, kept);
  const next = log.append(producedBatch(1, 10, timestamp), { leaderEpoch: 2 });
  assert.equal(next.baseOffset, kept.at(-1)!.baseOffset + 1 + (kept.at(-1)!.seed % 5));
  manager.close();
});
