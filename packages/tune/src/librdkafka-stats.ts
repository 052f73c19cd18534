/**
 * librdkafka's `statistics.interval.ms` JSON added up over a run. Its window statistics
 * (`batchsize`, `batchcnt`, `int_latency`, `outbuf_latency`, `rtt`, `throttle`) restart with
 * every emission, so the run's totals are the sums of every emission's `sum` and `cnt` (the driver
 * waits for one emission after its flush, so the last batches count too). Batch figures are the
 * topic's; latencies are over every broker. Units are librdkafka's: sizes in bytes, latencies in
 * microseconds, throttle in milliseconds.
 */
export interface WindowTotals {
  sum: number;
  cnt: number;
  max: number;
}

const TOPIC_WINDOWS = ['batchsize', 'batchcnt'] as const;
const BROKER_WINDOWS = { int_latency: 'us', outbuf_latency: 'us', rtt: 'us', throttle: 'ms' } as const;

export class LibrdkafkaStats {
  private readonly windows = new Map<string, WindowTotals>();
  private emissions = 0;

  constructor(private readonly topic: string) {}

  add(json: unknown): void {
    const stats = asObject(json);
    if (stats === null) return;
    this.emissions++;
    const topic = asObject(asObject(stats['topics'])?.[this.topic]);
    for (const name of TOPIC_WINDOWS) this.addWindow(name, topic?.[name]);
    for (const broker of Object.values(asObject(stats['brokers']) ?? {})) {
      const b = asObject(broker);
      for (const name of Object.keys(BROKER_WINDOWS)) this.addWindow(name, b?.[name]);
    }
  }

  /**
   * `batches` and `records-per-batch` (from `batchcnt`: a batch's record count), `batchsize-avg`
   * (bytes), and each broker window's mean and maximum with its unit, e.g. `rtt-avg-us`. A window
   * that saw nothing is left out.
   */
  metrics(): Record<string, number> {
    const out: Record<string, number> = { 'stats-emissions': this.emissions };
    const records = this.windows.get('batchcnt');
    if (records !== undefined) {
      out['batches'] = records.cnt;
      if (records.cnt > 0) out['records-per-batch'] = records.sum / records.cnt;
    }
    const bytes = this.windows.get('batchsize');
    if (bytes !== undefined && bytes.cnt > 0) out['batchsize-avg'] = bytes.sum / bytes.cnt;
    for (const [name, unit] of Object.entries(BROKER_WINDOWS)) {
      const w = this.windows.get(name);
      if (w === undefined || w.cnt === 0) continue;
      out[`${name}-avg-${unit}`] = w.sum / w.cnt;
      out[`${name}-max-${unit}`] = w.max;
    }
    return out;
  }

  private addWindow(name: string, window: unknown): void {
    const w = asObject(window);
    if (w === null) return;
    const sum = w['sum'];
    const cnt = w['cnt'];
    const max = w['max'];
    if (typeof sum !== 'number' || typeof cnt !== 'number') return;
    const total = this.windows.get(name) ?? { sum: 0, cnt: 0, max: 0 };
    total.sum += sum;
    total.cnt += cnt;
    if (cnt > 0 && typeof max === 'number') total.max = Math.max(total.max, max);
    this.windows.set(name, total);
  }
}

function asObject(v: unknown): Record<string, unknown> | null {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}
