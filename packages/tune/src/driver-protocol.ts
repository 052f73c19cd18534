/**
 * How the sweep talks to a client driver (`drivers/TuneDriver.java`, `drivers/tune-driver.c`,
 * `sluice-driver.ts`): one process per cell, fed text lines on stdin and answering JSON lines on
 * stdout. Text lines in, because C reads them without a JSON parser; JSON out, because every
 * language writes it with printf.
 *
 * In (each a verb, a space, the rest of the line; a property value may hold spaces):
 *   bootstrap HOST:PORT
 *   topic NAME
 *   producer KEY=VALUE        (any number; the cell's linger.ms/batch.size and the user's file)
 *   consumer KEY=VALUE        (any number; for the end-to-end consumer)
 *   run ID SECONDS RATE RECORD_SIZE E2E   (RATE 0: flat out; E2E 1: also consume and time it)
 * Every `run` makes a fresh producer (so its metrics are that run's alone) and is answered before
 * the next one is read; closing stdin ends the driver.
 *
 * Out, one JSON object a line:
 *   {"type":"hello","client":"kafka-clients 4.4.0"}          once, first
 *   {"type":"stats","id":ID,"json":{…}}                        librdkafka's statistics, verbatim
 *   {"type":"result","id":ID,"sent":N,"acknowledged":N,"failed":N,"firstError":S|null,
 *    "elapsedSeconds":X,"sendAckUs":[[US,COUNT],…],"consumed":N,"endToEndUs":[[US,COUNT],…]|null,
 *    "metrics":{"NAME":X,…}}
 *   {"type":"error","message":S}                               the driver cannot go on
 *
 * Latencies travel as a histogram of microseconds: values below 128 exactly, above that with 64
 * steps per power of two (at most 1/64 = 1.6% below the true value), which every driver computes
 * the same way (`latencyBucket`). Each is measured from the record's intended send time: at a
 * fixed rate the schedule's slot (so a stalled producer's backlog counts: coordinated omission
 * corrected), flat out the moment `send` was called. The record's value starts with that time
 * (8 bytes, big-endian nanoseconds on the driver's monotonic clock), which is how the driver's
 * consumer times produce→consume.
 */
import type { LatencySummary } from './latency-samples.js';

export interface DriverSetup {
  readonly bootstrap: string;
  readonly topic: string;
  readonly producer: ReadonlyMap<string, string>;
  readonly consumer: ReadonlyMap<string, string>;
}

export interface DriverRun {
  readonly id: number;
  readonly seconds: number;
  /** Records per second; null: flat out. */
  readonly targetRate: number | null;
  readonly recordSize: number;
  readonly endToEnd: boolean;
}

export type LatencyHistogram = ReadonlyArray<readonly [number, number]>;

export interface DriverResult {
  readonly id: number;
  readonly sent: number;
  readonly acknowledged: number;
  readonly failed: number;
  readonly firstError: string | null;
  readonly elapsedSeconds: number;
  readonly sendAckUs: LatencyHistogram;
  readonly consumed: number;
  readonly endToEndUs: LatencyHistogram | null;
  /** The client's own metrics by the client's names (Java's `batch-size-avg`, …). */
  readonly metrics: Readonly<Record<string, number>>;
}

export type DriverMessage =
  | { readonly type: 'hello'; readonly client: string }
  | { readonly type: 'stats'; readonly id: number; readonly json: unknown }
  | ({ readonly type: 'result' } & DriverResult)
  | { readonly type: 'error'; readonly message: string };

/** The value every record starts with: its intended send time. */
export const TIMESTAMP_BYTES = 8;

export class DriverProtocolError extends Error {
  override name = 'DriverProtocolError';
}

export function setupLines(setup: DriverSetup): string {
  const props = (verb: string, map: ReadonlyMap<string, string>): string[] => [...map].map(([k, v]) => `${verb} ${k}=${oneLine(v, k)}`);
  return (
    [
      `bootstrap ${setup.bootstrap}`,
      `topic ${setup.topic}`,
      ...props('producer', setup.producer),
      ...props('consumer', setup.consumer),
    ].join('\n') + '\n'
  );
}

export function runLine(run: DriverRun): string {
  return `run ${run.id} ${run.seconds} ${run.targetRate ?? 0} ${run.recordSize} ${run.endToEnd ? 1 : 0}\n`;
}

function oneLine(value: string, key: string): string {
  if (/[\r\n]/.test(value)) throw new DriverProtocolError(`property ${key} has a line break in its value`);
  return value;
}

/** One stdout line of a driver, checked field by field. */
export function parseDriverLine(line: string): DriverMessage {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    throw new DriverProtocolError(`driver printed a line that is not JSON: ${line.slice(0, 200)}`);
  }
  const o = objectOf(parsed, 'driver line');
  switch (o['type']) {
    case 'hello':
      return { type: 'hello', client: stringOf(o['client'], 'client') };
    case 'stats':
      return { type: 'stats', id: countOf(o['id'], 'id'), json: o['json'] };
    case 'error':
      return { type: 'error', message: stringOf(o['message'], 'message') };
    case 'result':
      return {
        type: 'result',
        id: countOf(o['id'], 'id'),
        sent: countOf(o['sent'], 'sent'),
        acknowledged: countOf(o['acknowledged'], 'acknowledged'),
        failed: countOf(o['failed'], 'failed'),
        firstError: o['firstError'] === null || o['firstError'] === undefined ? null : stringOf(o['firstError'], 'firstError'),
        elapsedSeconds: numberOf(o['elapsedSeconds'], 'elapsedSeconds'),
        sendAckUs: histogramOf(o['sendAckUs'], 'sendAckUs'),
        consumed: countOf(o['consumed'] ?? 0, 'consumed'),
        endToEndUs: o['endToEndUs'] === null || o['endToEndUs'] === undefined ? null : histogramOf(o['endToEndUs'], 'endToEndUs'),
        metrics: metricsOf(o['metrics'] ?? {}),
      };
    default:
      throw new DriverProtocolError(`driver line of unknown type ${JSON.stringify(o['type'])}`);
  }
}

function objectOf(v: unknown, what: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new DriverProtocolError(`${what} is not a JSON object`);
  return v as Record<string, unknown>;
}

function stringOf(v: unknown, field: string): string {
  if (typeof v !== 'string') throw new DriverProtocolError(`${field} is not a string`);
  return v;
}

function numberOf(v: unknown, field: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new DriverProtocolError(`${field} is not a number`);
  return v;
}

function countOf(v: unknown, field: string): number {
  const n = numberOf(v, field);
  if (!Number.isInteger(n) || n < 0) throw new DriverProtocolError(`${field} is not a count: ${n}`);
  return n;
}

function histogramOf(v: unknown, field: string): LatencyHistogram {
  if (!Array.isArray(v)) throw new DriverProtocolError(`${field} is not an array of [microseconds, count]`);
  return v.map((pair: unknown) => {
    if (!Array.isArray(pair) || pair.length !== 2)
      throw new DriverProtocolError(`${field} holds ${JSON.stringify(pair)}, not [microseconds, count]`);
    return [countOf(pair[0], `${field} microseconds`), countOf(pair[1], `${field} count`)] as const;
  });
}

/** A metric the client could not compute (Java's NaN average of nothing) arrives as null and is left out. */
function metricsOf(v: unknown): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, value] of Object.entries(objectOf(v, 'metrics'))) {
    if (value === null) continue;
    out[name] = numberOf(value, `metric ${name}`);
  }
  return out;
}

/** The histogram bucket (its lowest value) that `micros` falls in; the drivers in Java and C compute the same. */
export function latencyBucket(micros: number): number {
  const v = Math.max(0, Math.floor(micros));
  if (v < 128) return v;
  const shift = Math.floor(Math.log2(v)) - 6;
  const scale = 2 ** shift;
  return Math.floor(v / scale) * scale;
}

/** Percentiles by nearest rank, as `LatencySamples` computes them, from a bucketed histogram; in milliseconds. */
export function summarizeHistogram(histogram: LatencyHistogram): LatencySummary {
  const buckets = histogram.filter(([, count]) => count > 0).sort((a, b) => a[0] - b[0]);
  const count = buckets.reduce((sum, [, c]) => sum + c, 0);
  if (count === 0)
    return { count: 0, meanMs: Number.NaN, p50Ms: Number.NaN, p95Ms: Number.NaN, p99Ms: Number.NaN, p999Ms: Number.NaN, maxMs: Number.NaN };
  const percentile = (p: number): number => {
    const rank = Math.max(1, Math.ceil((p * count) / 100 - 1e-9));
    let seen = 0;
    for (const [us, c] of buckets) {
      seen += c;
      if (seen >= rank) return us / 1000;
    }
    return buckets.at(-1)![0] / 1000;
  };
  const sum = buckets.reduce((s, [us, c]) => s + us * c, 0);
  return {
    count,
    meanMs: sum / count / 1000,
    p50Ms: percentile(50),
    p95Ms: percentile(95),
    p99Ms: percentile(99),
    p999Ms: percentile(99.9),
    maxMs: buckets.at(-1)![0] / 1000,
  };
}

/** Counts of microsecond latencies by bucket, as a driver reports them. */
export class HistogramRecorder {
  private readonly counts = new Map<number, number>();

  record(micros: number): void {
    const bucket = latencyBucket(micros);
    this.counts.set(bucket, (this.counts.get(bucket) ?? 0) + 1);
  }

  toJSON(): Array<[number, number]> {
    return [...this.counts].sort((a, b) => a[0] - b[0]);
  }
}
