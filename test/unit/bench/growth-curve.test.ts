import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { growthCurve, mbPerSecondByGB, producerWindows } from '../../../bench/e2e/growth-curve.js';

/** ProducerPerformance's formats: a window line, and the summary that ends every run. */
const windowLine = (records: number, perSecond: number): string =>
  `${records} records sent, ${perSecond.toFixed(1)} records/sec (${((perSecond * 1024) / 2 ** 20).toFixed(2)} MB/sec), 3.1 ms avg latency, 210.0 ms max latency.`;
const summaryLine = (records: number, perSecond: number): string =>
  `${records} records sent, ${perSecond.toFixed(6)} records/sec (${((perSecond * 1024) / 2 ** 20).toFixed(2)} MB/sec), 3.40 ms avg latency, 412.00 ms max latency, 2 ms 50th, 9 ms 95th, 31 ms 99th, 180 ms 99.9th.`;

describe('producerWindows', () => {
  test('reads every window line and adds the unprinted last window from the summary', () => {
    // 3 s of 100,000 rec/s, then 50,000 records in the last 0.5 s: 350,000 records in 3.5 s.
    const stdout = [
      windowLine(100_000, 100_000),
      windowLine(100_000, 100_000),
      windowLine(100_000, 100_000),
      summaryLine(350_000, 100_000),
    ].join('\n');
    const windows = producerWindows(stdout);
    assert.equal(windows.length, 4);
    assert.deepEqual(windows.slice(0, 3), Array(3).fill({ records: 100_000, seconds: 1 }));
    assert.equal(windows[3]!.records, 50_000);
    assert.ok(Math.abs(windows[3]!.seconds - 0.5) < 1e-9);
  });

  test('adds no window when the printed ones cover the whole run', () => {
    const windows = producerWindows([windowLine(1000, 1000), summaryLine(1000, 1000)].join('\n'));
    assert.deepEqual(windows, [{ records: 1000, seconds: 1 }]);
  });

  test('clamps a last window that rounding makes a hair negative', () => {
    // Window rates are printed with one decimal: 1000.04/s shows as 1000.0, so the window seems
    // to last 1 s where it lasted 0.99996; the whole run, 10 µs longer, then looks shorter than it.
    const windows = producerWindows([windowLine(1000, 1000.04), summaryLine(1001, 1001 / 0.99997)].join('\n'));
    assert.deepEqual(windows[1], { records: 1, seconds: 0 });
  });

  test('rejects windows that add up to more than the total', () => {
    assert.throws(() => producerWindows([windowLine(2000, 1000), summaryLine(1000, 1000)].join('\n')), /more than its total/);
  });

  test('needs the summary line', () => {
    assert.throws(() => producerWindows(windowLine(1000, 1000)), /no ProducerPerformance summary/);
  });
});

describe('mbPerSecondByGB', () => {
  test('splits windows that straddle a GB boundary in proportion to their bytes', () => {
    // 1,000-byte records: 0.6 GB at 100 MB/s, 0.6 GB at 50 MB/s, 0.8 GB at 100 MB/s.
    const byGB = mbPerSecondByGB(
      [
        { records: 600_000, seconds: 6 },
        { records: 600_000, seconds: 12 },
        { records: 800_000, seconds: 8 },
      ],
      1000,
    );
    assert.equal(byGB.length, 2);
    // GB 1: 0.6 GB in 6 s + 0.4 GB in 8 s; GB 2: 0.2 GB in 4 s + 0.8 GB in 8 s.
    assert.ok(Math.abs(byGB[0]! - 1000 / 14) < 1e-9);
    assert.ok(Math.abs(byGB[1]! - 1000 / 12) < 1e-9);
  });

  test('splits one window over several GBs', () => {
    const byGB = mbPerSecondByGB([{ records: 3_000_000, seconds: 30 }], 1000);
    assert.deepEqual(
      byGB.map((v) => Math.round(v * 1e6) / 1e6),
      [100, 100, 100],
    );
  });

  test('leaves out the bytes beyond the last whole GB', () => {
    // 1 GB at 100 MB/s, then 1,024 bytes over (the record count is rounded up) in no time.
    assert.deepEqual(
      mbPerSecondByGB(
        [
          { records: 1_000_000, seconds: 10 },
          { records: 1, seconds: 0 },
        ],
        1000,
      ).map(Math.round),
      [100],
    );
  });

  test('is empty below 1 GB', () => {
    assert.deepEqual(mbPerSecondByGB([{ records: 999_999, seconds: 10 }], 1000), []);
  });
});

describe('growthCurve', () => {
  test('GB 1, GB 2, the last GB and the ratios', () => {
    // 1 KiB records: 1,000,000 at 50,000/s (1.024 GB at 51.2 MB/s, a slow start), then 1,000,000
    // at 100,000/s (102.4 MB/s), then 1,000,000 at 80,000/s (81.92 MB/s): 3.072 GB in all.
    const lines = [
      ...Array<string>(20).fill(windowLine(50_000, 50_000)),
      ...Array<string>(10).fill(windowLine(100_000, 100_000)),
      ...Array<string>(10).fill(windowLine(100_000, 80_000)),
      summaryLine(3_000_000, 3_000_000 / 42.5),
    ];
    const c = growthCurve(lines.join('\n'), 1024, 3_100_000_000);
    assert.equal(c.gb, 3);
    assert.ok(Math.abs(c.firstGBMBps - 51.2) < 1e-6, `first ${c.firstGBMBps}`);
    // GB 2: 0.024 GB still at 51.2 MB/s, then 0.976 GB at 102.4. GB 3: 0.048 GB at 102.4, 0.952 GB at 81.92.
    const second = 1000 / (24 / 51.2 + 976 / 102.4);
    const last = 1000 / (48 / 102.4 + 952 / 81.92);
    assert.ok(Math.abs(c.secondGBMBps - second) < 1e-6, `second ${c.secondGBMBps}`);
    assert.ok(Math.abs(c.lastGBMBps - last) < 1e-6, `last ${c.lastGBMBps}`);
    assert.deepEqual(c.mbPerSecondByGB, [c.firstGBMBps, c.secondGBMBps, c.lastGBMBps]);
    assert.ok(Math.abs(c.lastToSecond - last / second) < 1e-9);
    assert.ok(Math.abs(c.lastToFirst - last / 51.2) < 1e-9);
    assert.equal(c.logBytesOnDisk, 3_100_000_000);
    assert.equal(c.windows.length, 40);
  });

  test('refuses a run shorter than 3 GB', () => {
    const lines = [...Array<string>(20).fill(windowLine(100_000, 100_000)), summaryLine(2_000_000, 100_000)];
    assert.throws(() => growthCurve(lines.join('\n'), 1024, null), /2 whole GB, fewer than 3/);
  });
});
