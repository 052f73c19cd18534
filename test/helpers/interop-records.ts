/**
 * The records the interop tests produce and read back, in a form every client program can take
 * as JSON: keys, values and header values as hex (so arbitrary bytes survive), null kept as null.
 * One generator and one comparison serve every client, so each test checks the same things:
 * byte-exact keys, values, headers and timestamps, per-partition order, and offsets 0..n-1
 * without gaps or duplicates.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IHeaders, Message } from 'kafkajs';
import { compressionCodecId, readBatchHeader } from '@sluice/protocol/records/index.js';
import type { JsonLine, JsonValue } from './interop.js';

export type Header = [key: string, value: string | null];

export interface TestRecord {
  partition: number;
  key: string | null;
  value: string | null;
  headers: Header[];
  timestamp: number;
}

export interface ReadRecord extends TestRecord {
  offset: number;
}

export const CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const;
export type Codec = (typeof CODECS)[number];
/** Kafka's compression ids, as stored in a batch's attributes. */
export const CODEC_ID: Record<Codec, number> = { none: 0, gzip: 1, snappy: 2, lz4: 3, zstd: 4 };

export interface RecordOptions {
  /** Off for clients that mishandle a null header value (confluent-kafka 1.7, KafkaJS, kcat output). */
  readonly nullHeaderValues?: boolean;
  /** Printable header values, for records read back with kcat (which has no byte-safe header format). */
  readonly textHeaders?: boolean;
}

const hex = (b: Buffer | string): string => Buffer.from(b).toString('hex');

/**
 * `perPartition` records for each of `partitions` partitions, varied on purpose: null and
 * binary keys (0x00, 0xff), null and empty values, large compressible values (so every codec
 * really compresses), UTF-8 text, repeated header keys and null header values. Timestamps
 * increase by one second per record within a partition, from an hour ago (inside Kafka's
 * default timestamp window).
 */
export function makeRecords(tag: string, partitions: number, perPartition: number, opts: RecordOptions = {}): TestRecord[] {
  const base = Date.now() - 3_600_000;
  const records: TestRecord[] = [];
  for (let i = 0; i < perPartition; i++) {
    for (let p = 0; p < partitions; p++) {
      const n = i * partitions + p;
      const key = n % 7 === 3 ? null : hex(Buffer.concat([Buffer.from(`${tag}-k${n}-ключ`), Buffer.from([0x00, 0xff, n & 0xff])]));
      let value: string | null;
      if (n % 11 === 5) value = null;
      else if (n % 11 === 6) value = '';
      else
        value = hex(
          Buffer.concat([Buffer.from(`${tag} value ${n} `.repeat(1 + (n % 5) * 40)), Buffer.from([0x00, 0x1e, 0x1f, 0xfe, 0xff])]),
        );
      const headers: Header[] =
        n % 4 === 0
          ? []
          : [
              ['h', hex(`${tag}-${n}`)],
              ['bin', hex(opts.textHeaders === true ? `b${n}` : Buffer.from([0, n & 0xff, 0xff]))],
              ['h', hex('again')],
            ];
      if (n % 4 === 2 && (opts.nullHeaderValues ?? true)) headers.push(['null-valued', null]);
      records.push({ partition: p, key, value, headers, timestamp: base + i * 1000 + p });
    }
  }
  return records;
}

export function recordsByPartition<T extends TestRecord>(records: readonly T[]): Map<number, T[]> {
  const m = new Map<number, T[]>();
  for (const r of records) {
    const list = m.get(r.partition) ?? [];
    list.push(r);
    m.set(r.partition, list);
  }
  return m;
}

/**
 * The read-back equals what was produced: per partition the same records in the same order at
 * offsets `firstOffset`, `firstOffset+1`, ... (a duplicate from a retried batch or a lost record
 * fails here), nothing extra, nothing missing.
 */
export function assertReadBack(produced: readonly TestRecord[], read: readonly ReadRecord[], firstOffset = 0): void {
  const want = recordsByPartition(produced);
  const got = recordsByPartition(read);
  assert.deepEqual([...got.keys()].sort(), [...want.keys()].sort(), 'partitions read');
  for (const [p, records] of want) {
    const expected = records.map((r, i): ReadRecord => ({ ...r, offset: firstOffset + i }));
    const actual = got.get(p)!.map((r): ReadRecord => ({
      partition: r.partition,
      offset: r.offset,
      key: r.key,
      value: r.value,
      headers: r.headers,
      timestamp: r.timestamp,
    }));
    assert.equal(actual.length, expected.length, `partition ${p}: record count`);
    for (let i = 0; i < expected.length; i++) assert.deepEqual(actual[i], expected[i], `partition ${p}, record ${i}`);
  }
}

/**
 * What offsetsForTimes must answer for `timestamp` in partition `p` of a fresh topic holding
 * `produced`: the offset of the first record whose timestamp is at or after it, or -1 (null
 * in some clients' terms) when there is none.
 */
export function expectedOffsetForTime(produced: readonly TestRecord[], p: number, timestamp: number): number {
  return (recordsByPartition(produced).get(p) ?? []).findIndex((r) => r.timestamp >= timestamp);
}

/** Queries for offsetsForTimes that hit every case: before all, exact, between two, after all. */
export function timeQueries(produced: readonly TestRecord[]): Array<{ partition: number; timestamp: number; offset: number }> {
  const queries: Array<{ partition: number; timestamp: number; offset: number }> = [];
  for (const [p, records] of recordsByPartition(produced)) {
    const ts = [
      records[0]!.timestamp - 10_000,
      records[2]!.timestamp,
      records[4]!.timestamp - 1,
      records[records.length - 1]!.timestamp + 1,
    ];
    for (const t of ts) queries.push({ partition: p, timestamp: t, offset: expectedOffsetForTime(produced, p, t) });
  }
  return queries;
}

function str(v: JsonValue | undefined, what: string): string {
  if (typeof v !== 'string') throw new Error(`${what}: expected a string, got ${JSON.stringify(v)}`);
  return v;
}

function num(v: JsonValue | undefined, what: string): number {
  if (typeof v !== 'number') throw new Error(`${what}: expected a number, got ${JSON.stringify(v)}`);
  return v;
}

const nullableStr = (v: JsonValue | undefined, what: string): string | null => (v === null ? null : str(v, what));

/** A record line printed by the Java or Python program (`{"partition":..,"offset":..,"key":..}`). */
export function readRecordFromJson(line: JsonLine): ReadRecord {
  const headers = line['headers'];
  if (!Array.isArray(headers)) throw new Error(`headers: expected an array in ${JSON.stringify(line)}`);
  return {
    partition: num(line['partition'], 'partition'),
    offset: num(line['offset'], 'offset'),
    key: nullableStr(line['key'], 'key'),
    value: nullableStr(line['value'], 'value'),
    headers: headers.map((h): Header => {
      if (!Array.isArray(h) || h.length !== 2) throw new Error(`header: ${JSON.stringify(h)}`);
      return [str(h[0], 'header key'), nullableStr(h[1], 'header value')];
    }),
    timestamp: num(line['timestamp'], 'timestamp'),
  };
}

/** Lines of one `type` (`{"type":"record",...}`) from a program's output. */
export function linesOfType(lines: readonly JsonLine[], type: string): JsonLine[] {
  return lines.filter((l) => l['type'] === type);
}

/** The JSON the client programs take: records with their partitions and codec. */
export function recordsAsJson(records: readonly TestRecord[]): JsonValue {
  return records.map((r) => ({ partition: r.partition, key: r.key, value: r.value, headers: r.headers, timestamp: r.timestamp }));
}

/**
 * The compression ids of the batches stored for `topic` under `logDir`: proof that a client
 * really sent compressed batches (librdkafka, for one, sends a batch uncompressed when
 * compression would not make it smaller) and that the broker stored them as sent.
 */
export function codecsOnDisk(logDir: string, topic: string): Set<number> {
  const ids = new Set<number>();
  for (const dir of readdirSync(logDir).filter((d) => d.startsWith(`${topic}-`) && /^\d+$/.test(d.slice(topic.length + 1)))) {
    for (const file of readdirSync(join(logDir, dir)).filter((f) => f.endsWith('.log'))) {
      const buf = readFileSync(join(logDir, dir, file));
      for (let pos = 0; ;) {
        const header = readBatchHeader(buf, pos);
        if (header === null) break;
        ids.add(compressionCodecId(header.attributes));
        pos = header.end;
      }
    }
  }
  return ids;
}

export interface RoundtripExpectations {
  /** Every record that was produced to each `<topicPrefix>-<codec>` topic. */
  readonly records: readonly TestRecord[];
  readonly queries: ReadonlyArray<{ partition: number; timestamp: number; offset: number }>;
  readonly topicPrefix: string;
  readonly codecs: readonly Codec[];
  readonly partitions: number;
  /** How the client names a CreateTime timestamp. */
  readonly createTime: JsonValue;
  /** The log dir, to check the codec of the stored batches. */
  readonly logDir: string;
}

/**
 * Checks a client program's `roundtrip` output (the same scenario in Java and Python): for each
 * codec, the acknowledged offsets, a byte-exact read-back, the end offsets, the stored codec
 * and the offsetsForTimes answers.
 */
export function assertRoundtrip(lines: readonly JsonLine[], x: RoundtripExpectations): void {
  for (const codec of x.codecs) {
    const topic = `${x.topicPrefix}-${codec}`;
    const of = (type: string): JsonLine[] => linesOfType(lines, type).filter((l) => l['topic'] === topic);
    // Acknowledged in send order per partition, at each partition's next offset.
    const acked = [
      ...recordsByPartition(of('sent').map((l) => ({ ...readPartitionOffset(l), key: null, value: null, headers: [], timestamp: 0 }))),
    ];
    for (const [p, list] of acked)
      assert.deepEqual(
        list.map((l) => l.offset),
        list.map((_, i) => i),
        `${codec}: acknowledged offsets of partition ${p}`,
      );
    assert.equal(of('sent').length, x.records.length, `${codec}: every record acknowledged`);

    const read = of('record');
    assert.ok(
      read.every((l) => l['timestampType'] === x.createTime),
      `${codec}: timestamp type`,
    );
    assertReadBack(x.records, read.map(readRecordFromJson));
    const perPartition = recordsByPartition(x.records);
    assert.deepEqual(
      of('end')[0]!['offsets'],
      [...Array(x.partitions).keys()].map((p) => perPartition.get(p)?.length ?? 0),
      `${codec}: end offsets`,
    );
    assert.deepEqual(codecsOnDisk(x.logDir, topic), new Set([CODEC_ID[codec]]), `${codec}: batches on disk`);

    const answers = of('offsetForTime').map((l) => ({ partition: l['partition'], timestamp: l['timestamp'], offset: l['offset'] ?? -1 }));
    assert.deepEqual(answers, x.queries, `${codec}: offsetsForTimes`);
  }
}

function readPartitionOffset(l: JsonLine): { partition: number; offset: number } {
  return { partition: num(l['partition'], 'partition'), offset: num(l['offset'], 'offset') };
}

/**
 * KafkaJS takes headers as an object (no null values), so repeated keys end up next to each
 * other in first-seen order: `sent` is the order they go on the wire.
 */
export function kafkajsHeaders(headers: readonly Header[]): { object: IHeaders; sent: Header[] } {
  const object: IHeaders = {};
  for (const [k, v] of headers) {
    const value = Buffer.from(v!, 'hex');
    const existing = object[k];
    object[k] = existing === undefined ? value : [...(Array.isArray(existing) ? existing : [existing]), value];
  }
  const sent = Object.keys(object).flatMap((k) => headers.filter(([hk]) => hk === k));
  return { object, sent };
}

/** A test record as a KafkaJS message (explicit partition and timestamp). */
export function toKafkaJsMessage(r: TestRecord): Message {
  return {
    partition: r.partition,
    key: r.key === null ? null : Buffer.from(r.key, 'hex'),
    value: r.value === null ? null : Buffer.from(r.value, 'hex'),
    headers: kafkajsHeaders(r.headers).object,
    timestamp: String(r.timestamp),
  };
}
