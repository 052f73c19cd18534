// kcat (librdkafka 2.0) against the broker process: keyed produce with headers in every codec,
// byte-exact consume in per-partition order, offsets for times (-Q) and metadata (-L).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBrokerProcess, type BrokerProcess } from '../../helpers/broker-process.js';
import { kcat, kcatRead } from '../../helpers/interop.js';
import { CODEC_ID, CODECS, codecsOnDisk, recordsByPartition, type ReadRecord, type TestRecord } from '../../helpers/interop-records.js';
import { kcatSkip } from '../../helpers/requirements.js';

const TOPIC = 'kcat-codecs';
const PARTITIONS = 4;
const PER_WAVE = 24;
// Message and key delimiters for kcat's stdin: every other byte, 0x00 and 0xff included, may
// appear in keys and values.
const MSG_DELIM = 0x1e;
const KEY_DELIM = 0x1f;

interface Wave {
  readonly codec: string;
  readonly records: TestRecord[];
  /** The wall-clock window of the kcat run: librdkafka stamps each record with its send time. */
  readonly startMs: number;
  readonly endMs: number;
}

/** Keys and values with binary bytes; with -Z an empty key or value is sent as null. */
function waveInput(wave: number, codec: string): { stdin: Buffer; records: TestRecord[] } {
  const parts: Buffer[] = [];
  const records: TestRecord[] = [];
  for (let n = 0; n < PER_WAVE; n++) {
    const key = n % 8 === 7 ? null : Buffer.concat([Buffer.from(`w${wave}-k${n}-é`), Buffer.from([0x00, 0xff, n])]);
    const value =
      n % 9 === 4
        ? null
        : Buffer.concat([Buffer.from(`wave ${wave} ${codec} record ${n} `.repeat(20 + n * 10)), Buffer.from([0x00, 0xfe, 0xff])]);
    parts.push(key ?? Buffer.alloc(0), Buffer.from([KEY_DELIM]), value ?? Buffer.alloc(0), Buffer.from([MSG_DELIM]));
    records.push({
      partition: -1, // chosen by librdkafka's partitioner
      key: key?.toString('hex') ?? null,
      value: value?.toString('hex') ?? null,
      headers: [
        ['codec', Buffer.from(codec).toString('hex')],
        ['wave', Buffer.from(String(wave)).toString('hex')],
      ],
      timestamp: -1,
    });
  }
  return { stdin: Buffer.concat(parts), records };
}

const identity = (r: { key: string | null; value: string | null }): string => `${r.key}|${r.value}`;

describe('kcat (librdkafka)', { skip: kcatSkip() }, () => {
  let dir: string;
  let broker: BrokerProcess;
  const waves: Wave[] = [];
  let read: ReadRecord[] = [];

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sluice-interop-kcat-'));
    broker = await startBrokerProcess({ 'log.dirs': dir, 'num.partitions': String(PARTITIONS) });
    // One kcat run per codec, one after the other, so each wave has its own time window.
    for (const [i, codec] of CODECS.entries()) {
      const { stdin, records } = waveInput(i, codec);
      const startMs = Date.now();
      await kcat(
        [
          '-b',
          broker.bootstrap,
          '-P',
          '-t',
          TOPIC,
          '-z',
          codec,
          '-Z',
          '-K',
          '\\x1f',
          '-D',
          '\\x1e',
          '-H',
          `codec=${codec}`,
          '-H',
          `wave=${i}`,
          '-X',
          'linger.ms=20',
        ],
        stdin,
      );
      waves.push({ codec, records, startMs, endMs: Date.now() });
      await new Promise((r) => setTimeout(r, 5)); // fixed on purpose: the next wave's timestamps start strictly later
    }
    read = await kcatRead(broker.bootstrap, TOPIC);
  });
  after(async () => {
    await broker?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('every codec: read back byte-exact, in produce order per partition, at contiguous offsets', () => {
    const produced = new Map(waves.flatMap((w, i) => w.records.map((r, n) => [identity(r), { wave: i, n, record: r }] as const)));
    assert.equal(read.length, produced.size, 'every record read once');
    const byPartition = recordsByPartition(read);
    assert.ok(byPartition.size >= 3, `keys spread over partitions (${byPartition.size} used)`);
    for (const [p, records] of byPartition) {
      assert.deepEqual(
        records.map((r) => r.offset),
        records.map((_, i) => i),
        `partition ${p}: offsets`,
      );
      let previous = -1;
      for (const r of records) {
        const source = produced.get(identity(r));
        assert.ok(source !== undefined, `partition ${p} offset ${r.offset}: a record that was never produced`);
        assert.deepEqual(r.headers, source.record.headers, `partition ${p} offset ${r.offset}: headers`);
        const order = source.wave * PER_WAVE + source.n;
        assert.ok(order > previous, `partition ${p} offset ${r.offset}: out of produce order`);
        previous = order;
        const w = waves[source.wave]!;
        assert.ok(
          r.timestamp >= w.startMs && r.timestamp <= w.endMs,
          `timestamp ${r.timestamp} outside the send window [${w.startMs}, ${w.endMs}]`,
        );
      }
    }
  });

  test('the log holds every batch in the codec kcat was asked for: Produce v0 is advertised, so librdkafka 2.0 compresses', () => {
    assert.deepEqual(codecsOnDisk(dir, TOPIC), new Set(CODECS.map((c) => CODEC_ID[c])));
  });

  test('-Q: offsets for times (before all, each wave start, after all)', async () => {
    const byPartition = recordsByPartition(read);
    const queries: Array<{ partition: number; timestamp: number; offset: number }> = [];
    for (const [p, records] of byPartition) {
      const first = (ts: number): number => records.findIndex((r) => r.timestamp >= ts);
      queries.push({ partition: p, timestamp: 0, offset: 0 });
      for (const w of waves.slice(1)) queries.push({ partition: p, timestamp: w.startMs, offset: first(w.startMs) });
      queries.push({ partition: p, timestamp: Date.now() + 60_000, offset: -1 });
    }
    // kcat answers for one timestamp per partition per run.
    const answers: typeof queries = [];
    for (let round = 0; round < waves.length + 1; round++) {
      const batch = queries.filter((_, i) => i % (waves.length + 1) === round);
      const out = (
        await kcat(['-b', broker.bootstrap, '-Q', ...batch.flatMap((q) => ['-t', `${TOPIC}:${q.partition}:${q.timestamp}`])])
      ).toString();
      for (const q of batch) {
        const m = new RegExp(`^${TOPIC} \\[${q.partition}\\] offset (-?\\d+)$`, 'm').exec(out);
        assert.ok(m, `no answer for partition ${q.partition} in ${out}`);
        answers.push({ ...q, offset: Number(m[1]) });
      }
    }
    assert.deepEqual(
      answers.sort((a, b) => a.partition - b.partition || a.timestamp - b.timestamp),
      queries.sort((a, b) => a.partition - b.partition || a.timestamp - b.timestamp),
    );
    assert.ok(
      queries.some((q) => q.offset > 0),
      'some query lands after the first record',
    );
  });

  test('-L: metadata lists the broker at its advertised address and every partition led by it', async () => {
    const out = (await kcat(['-b', broker.bootstrap, '-L', '-t', TOPIC])).toString();
    assert.match(out, new RegExp(`broker 0 at ${broker.bootstrap.replace(/\./g, '\\.')} \\(controller\\)`));
    assert.match(out, new RegExp(`topic "${TOPIC}" with ${PARTITIONS} partitions:`));
    for (let p = 0; p < PARTITIONS; p++) assert.match(out, new RegExp(`partition ${p}, leader 0, replicas: 0, isrs: 0`));
    const all = (await kcat(['-b', broker.bootstrap, '-L'])).toString();
    assert.match(all, new RegExp(`topic "${TOPIC}" with ${PARTITIONS} partitions`));
  });
});
