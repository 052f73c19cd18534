/**
 * A crash at each step of a compaction swap, then a reopen: leftover `.cleaned` files are deleted
 * (the log reads as before cleaning), a `.swap` completes the swap (the log reads as after), never
 * a mix. Each case builds the same log, cleans a copy fully for the "after" reference, and stops a
 * second copy at the step under test.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, readdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { cleanSegments } from '../../../../src/storage/cleaner/clean-segments.js';
import type { CleanRunner } from '../../../../src/storage/cleaner/cleaner-pool.js';
import { renameCleanedToSwap } from '../../../../src/storage/cleaner/segment-swap.js';
import { Faults } from '../../../../src/storage/index.js';
import { FakeClock, tempDir } from '../storage-fixtures.js';
import { clean, compactedLog, keyedBatch, logDirOf, openManager, readAll, TP, type ReadRecord } from './cleaner-fixtures.js';

const KEYS = ['a', 'b', 'c'];
/** Four segments of three records: the active segment starts at 12. */
const ACTIVE_BASE = 12;

/** Four rolled segments of updates to three keys, plus an active one. */
function build(root: string, clock: FakeClock): void {
  const manager = openManager(root, clock, { cleaner: false });
  const log = compactedLog(manager);
  for (let round = 0; round < 4; round++) {
    log.append(
      keyedBatch(
        KEYS.map((key) => ({ key, value: `${key}${round}` })),
        clock.nowMs,
      ),
      { leaderEpoch: 0 },
    );
    log.roll();
  }
  log.append(keyedBatch([{ key: 'a', value: 'live' }], clock.nowMs), { leaderEpoch: 0 });
  log.highWatermark = log.logEndOffset;
  manager.close();
}

/** A runner that writes the `.cleaned` files, applies `then`, and never settles (the broker dies first). */
function stoppingRunner(then: (dir: string, bases: number[]) => void): CleanRunner {
  return (task) => {
    const result = cleanSegments(task);
    then(
      task.dir,
      result.cleaned.map((c) => c.baseOffset),
    );
    return new Promise(() => undefined);
  };
}

async function scenario(
  name: string,
  crash: (root: string, clock: FakeClock) => Promise<void>,
): Promise<{ before: ReadRecord[]; after: ReadRecord[]; recovered: ReadRecord[]; leftovers: string[] }> {
  const base = tempDir(`crash-${name}`);
  const clock = new FakeClock();
  try {
    const original = join(base.path, 'original');
    build(original, clock);
    const reference = join(base.path, 'reference');
    const crashed = join(base.path, 'crashed');
    cpSync(original, reference, { recursive: true });
    cpSync(original, crashed, { recursive: true });

    const ref = openManager(reference, clock);
    const before = readAll(ref.getLog(TP)!);
    await clean(ref);
    const after = readAll(ref.getLog(TP)!);
    ref.close();

    await crash(crashed, clock);
    const reopened = openManager(crashed, clock, { cleaner: false });
    try {
      const log = reopened.getLog(TP)!;
      const recovered = readAll(log);
      log.append(keyedBatch([{ key: 'z', value: 'after-recovery' }], clock.nowMs), { leaderEpoch: 0 });
      assert.equal(readAll(log).at(-1)?.value, 'after-recovery', 'appends continue after recovery');
      const leftovers = readdirSync(logDirOf(crashed)).filter((n) => /\.(cleaned|swap)$/.test(n));
      return { before, after, recovered, leftovers };
    } finally {
      reopened.close();
    }
  } finally {
    Faults.disarmAll();
    base.remove();
  }
}

/** Opens the copy with a runner stopping at a step, runs one maintain, and drops everything as a crash would. */
function crashWith(runner: CleanRunner): (root: string, clock: FakeClock) => Promise<void> {
  return async (root, clock) => {
    const manager = openManager(root, clock, { cleaner: { runner } });
    manager.maintain();
    await new Promise((resolve) => setImmediate(resolve));
    manager.abandon();
  };
}

test('crash with the .cleaned files written: deleted at open, the log reads as before cleaning', async () => {
  const r = await scenario('cleaned', crashWith(stoppingRunner(() => undefined)));
  assert.notDeepEqual(r.before, r.after, 'cleaning changes the log');
  assert.deepEqual(r.recovered, r.before);
  assert.deepEqual(r.leftovers, []);
});

test('crash after .cleaned → .swap: the swap completes at open, the log reads as after cleaning', async () => {
  const r = await scenario('swap', crashWith(stoppingRunner((dir, bases) => bases.forEach((b) => renameCleanedToSwap(dir, b)))));
  assert.deepEqual(r.recovered, r.after);
  assert.deepEqual(r.leftovers, []);
});

test('crash inside step 1 (index files renamed to .swap, the .log still .cleaned): as before cleaning', async () => {
  const r = await scenario(
    'swap-partial',
    crashWith(
      stoppingRunner((dir, bases) => {
        const stem = join(dir, String(bases[0]).padStart(20, '0'));
        renameSync(`${stem}.index.cleaned`, `${stem}.index.swap`);
        renameSync(`${stem}.timeindex.cleaned`, `${stem}.timeindex.swap`);
      }),
    ),
  );
  assert.deepEqual(r.recovered, r.before);
  assert.deepEqual(r.leftovers, []);
});

for (const renamed of [0, 1, 3]) {
  test(`crash in step 2 after ${renamed} old segment(s) renamed to .deleted: the swap completes at open`, async () => {
    const r = await scenario(`deleted-${renamed}`, async (root, clock) => {
      Faults.arm('segment.delete', { after: renamed });
      const manager = openManager(root, clock);
      manager.maintain();
      await manager.cleaningIdle();
      assert.equal(manager.logDirs[0]!.online, false, 'the injected I/O error took the dir offline mid-swap');
      manager.abandon();
    });
    assert.deepEqual(r.recovered, r.after);
    assert.deepEqual(r.leftovers, []);
  });
}

test('crash in step 3 (indexes renamed to final names, the .log still .swap): the swap completes at open', async () => {
  const r = await scenario(
    'final-partial',
    crashWith(
      stoppingRunner((dir, bases) => {
        for (const b of bases) renameCleanedToSwap(dir, b);
        for (const name of readdirSync(dir)) {
          const old = /^(\d{20})\.(log|index|timeindex)$/.exec(name);
          if (old !== null && Number(old[1]) < ACTIVE_BASE) renameSync(join(dir, name), join(dir, `${name}.deleted`));
        }
        const stem = join(dir, String(bases[0]).padStart(20, '0'));
        renameSync(`${stem}.index.swap`, `${stem}.index`);
      }),
    ),
  );
  assert.deepEqual(r.recovered, r.after);
  assert.deepEqual(r.leftovers, []);
});
