import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseOptions } from '../../../bench/e2e/options.js';
import { pinnedMarkdown, summarizePinned, type PinnedResults } from '../../../bench/e2e/pinned-report.js';
import { pinnedRows, type PinnedRun } from '../../../bench/e2e/pinned.js';
import { judgeTargets } from '../../../bench/e2e/pinned-targets.js';
import { soakFlatness } from '../../../bench/e2e/soak.js';

function run(
  workload: string,
  broker: 'sluice' | 'kafka',
  rep: number,
  mbPerSecond: number,
  brokerCpuSecondsPerGB: number,
  generatorCoreBusy: number,
): PinnedRun {
  return {
    workload,
    broker,
    rep,
    records: 1,
    bytes: 1,
    seconds: 1,
    recordsPerSecond: mbPerSecond * 1000,
    mbPerSecond,
    brokerCpuSeconds: 1,
    brokerCpuSecondsPerGB,
    brokerPeakRssMiB: 100,
    generatorCpuSeconds: 1,
    generatorCpuCores: generatorCoreBusy,
    otherCpuCores: 0,
    loadAverage1m: 0,
    generatorCpuSecondsPerGB: 3,
    generatorCoreBusy,
    brokerCoreBusy: 1,
    wireBytesPerPayloadByte: 1.01,
    generatorSaturated: generatorCoreBusy >= 0.9,
  };
}

test('the pinned rows: produce 1 KiB acks=1 and all, 100 B, one row per codec, consume, latency', () => {
  const ids = pinnedRows(parseOptions(['--pin', '--quick'])).map((r) => r.id);
  assert.deepEqual(ids, [
    'pin-p1k-acks1-none',
    'pin-p1k-acksall-none',
    'pin-p100b-acks1-none',
    'pin-p1k-acks1-lz4',
    'pin-p1k-acks1-gzip',
    'pin-p1k-acks1-snappy',
    'pin-p1k-acks1-zstd',
    'pin-consume-1k',
    'pin-latency',
  ]);
  assert.deepEqual(
    pinnedRows(parseOptions(['--pin', '--workloads', 'consume'])).map((r) => r.id),
    ['pin-consume-1k'],
  );
});

test('summaries are medians over the rounds with their spread; a saturated generator core in any round marks the row', () => {
  const runs = [
    run('pin-p1k-acks1-none', 'sluice', 0, 200, 5, 0.5),
    run('pin-p1k-acks1-none', 'sluice', 1, 180, 6, 0.95),
    run('pin-p1k-acks1-none', 'sluice', 2, 220, 4, 0.6),
    run('pin-p1k-acks1-none', 'kafka', 0, 100, 8, 0.4),
    run('pin-p1k-acks1-none', 'kafka', 1, 140, 7, 0.4),
    run('pin-p1k-acks1-none', 'kafka', 2, 120, 6, 0.4),
  ];
  const [s, k] = summarizePinned(runs);
  assert.equal(s!.broker, 'sluice');
  assert.deepEqual(s!.mbPerSecond, { median: 200, min: 180, max: 220 });
  assert.deepEqual(s!.brokerCpuSecondsPerGB, { median: 5, min: 4, max: 6 });
  assert.equal(s!.generatorCoreBusy, 0.6);
  assert.equal(s!.generatorSaturated, true);
  assert.equal(k!.generatorSaturated, false);
  assert.equal(s!.runs, 3);

  const rows = pinnedRows(parseOptions(['--pin', '--workloads', 'produce'])).slice(0, 1);
  const results: PinnedResults = {
    date: 'd',
    mode: 'pinned-quick',
    environment: {},
    plan: { brokerCpus: [0], generatorCpus: [1] },
    pinnedThreads: { sluice: 12, kafka: 90 },
    rows,
    summaries: summarizePinned(runs),
    runs,
    startup: [],
    kafkaStart: null,
    soak: [],
    failures: [],
  };
  const md = pinnedMarkdown(results);
  assert.match(md, /Quick run/);
  assert.match(md, /\| produce 1 KiB, acks=1 \(3\) \| 200 \(180–220\) \| 120 \(100–140\) \| 1\.67× \|/);
  assert.match(md, /\*\*broker CPU\/GB\*\* \(generator core saturated\)/);
});

test('RSS under a soak is judged after its warm-up: flat when max/min stays within 10%', () => {
  const samples = [0, 1, 2, 3, 4, 5, 6].map((minute) => ({ minute, rssMiB: minute === 0 ? 60 : 100 + minute }));
  const f = soakFlatness(samples, 6)!;
  assert.equal(f.fromMinute, 1);
  assert.equal(f.minMiB, 101);
  assert.equal(f.maxMiB, 106);
  assert.equal(f.flat, true);
  const growing = [0, 5, 10, 15, 20, 25, 30].map((minute) => ({ minute, rssMiB: 100 + minute * 2 }));
  const g = soakFlatness(growing, 30)!;
  assert.equal(g.fromMinute, 5);
  assert.equal(g.flat, false);
  assert.equal(soakFlatness([{ minute: 0, rssMiB: 1 }], 3), null);
});

test('targets: throughput rows by ratio, generator-bound rows by broker CPU per GB, and start-up, idle RSS and soak against their limits', () => {
  const runs = [
    run('pin-p1k-acks1-none', 'sluice', 0, 300, 2, 0.5),
    run('pin-p1k-acks1-none', 'kafka', 0, 100, 4, 0.5),
    run('pin-p1k-acks1-lz4', 'sluice', 0, 100, 1, 0.95),
    run('pin-p1k-acks1-lz4', 'kafka', 0, 100, 1.2, 0.95),
  ];
  const verdicts = judgeTargets({
    summaries: summarizePinned(runs),
    startup: [{ startSeconds: 0.25, startCpuSeconds: 0.2, idleRssMiB: 55, threads: 8 }],
    soak: [
      {
        broker: 'sluice',
        minutes: 30,
        ratePerSecond: 1,
        samples: [],
        flatness: { fromMinute: 5, minMiB: 100, maxMiB: 105, lastMiB: 104, spread: 0.05, flat: true },
        achievedMBps: 20,
        p99Ms: 5,
        generatorCpuSeconds: 1,
      },
      {
        broker: 'kafka',
        minutes: 30,
        ratePerSecond: 1,
        samples: [],
        flatness: { fromMinute: 5, minMiB: 700, maxMiB: 800, lastMiB: 800, spread: 0.14, flat: false },
        achievedMBps: 20,
        p99Ms: 5,
        generatorCpuSeconds: 1,
      },
    ],
  });
  const by = (prefix: string) => verdicts.find((v) => v.target.startsWith(prefix));
  assert.deepEqual(by('produce 1 KiB acks=1: ≥'), { target: 'produce 1 KiB acks=1: ≥ 1.5× Kafka', measured: '3.00×', met: true });
  assert.deepEqual(by('produce 1 KiB acks=1: broker'), {
    target: "produce 1 KiB acks=1: broker CPU/GB ≤ 0.7× Kafka's",
    measured: '0.50×',
    met: true,
  });
  assert.equal(by('produce 1 KiB lz4')!.measured, 'CPU/GB 0.83×');
  assert.equal(by('produce 1 KiB lz4')!.met, false);
  assert.equal(by('idle RSS')!.met, true);
  assert.equal(by('start to accepting')!.met, false);
  assert.equal(by('RSS under sustained load flat')!.met, true);
  assert.equal(by('RSS under sustained load ≤')!.measured, '105 / 800 MiB (0.13×)');
  assert.equal(by('consume'), undefined);
});
