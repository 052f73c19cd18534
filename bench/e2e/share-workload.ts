/**
 * The share-group workload (KIP-932): a 4-partition topic is written once (not measured), then
 * read to the end by 1, 4 and 16 share consumers of one fresh share group each
 * (`share.auto.offset.reset=earliest`, every record ACCEPTed), with the broker's CPU and the
 * consumer process's CPU read around each read. The consumer is franz-go (bench/e2e/franz-share)
 * or the Java KafkaShareConsumer (BenchTool shareConsume).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from '../../tools/kafka/kafka-release.js';
import { lastJson, runJava, runTool, type ToolRun } from './java-tools.js';
import { table } from './md-table.js';
import { median } from './report.js';
import {
  createTopic,
  deleteTopic,
  freshTopic,
  measurement,
  observe,
  producerPerformance,
  type Measurement,
  type RunContext,
} from './workloads.js';

export const SHARE_PARTITIONS = 4;
export const SHARE_RECORD_BYTES = 1024;
export type ShareClient = 'franz' | 'java';

export interface ShareWorkload {
  readonly records: number;
  readonly consumerCounts: readonly number[];
  readonly client: ShareClient;
}

const FRANZ_BINARY = join(repoRoot(), 'dist', 'bench', 'e2e', 'franz-share');

/** Builds the franz-go consumer (its modules come from the Go module cache or proxy, as any Go program's). */
export function buildFranzShare(): void {
  const build = spawnSync('go', ['build', '-o', FRANZ_BINARY, '.'], {
    cwd: join(repoRoot(), 'bench', 'e2e', 'franz-share'),
    stdio: 'inherit',
    timeout: 600_000,
  });
  if (build.status !== 0) throw new Error(`building bench/e2e/franz-share failed (${build.error?.message ?? `exit ${build.status}`})`);
}

function consume(ctx: RunContext, client: ShareClient, topic: string, group: string, consumers: number, records: number): Promise<ToolRun> {
  if (client === 'java')
    return runJava(ctx.tools, 'BenchTool', ['shareConsume', ctx.broker.bootstrap, topic, group, String(consumers), String(records)]);
  return runTool(FRANZ_BINARY, [
    '-brokers',
    ctx.broker.bootstrap,
    '-topic',
    topic,
    '-group',
    group,
    '-consumers',
    String(consumers),
    '-records',
    String(records),
  ]);
}

export function shareWorkloadId(consumers: number): string {
  return `share-${consumers}`;
}

/** One topic on `ctx.broker`, read once per consumer count; the topic is deleted afterwards. */
export async function runShare(
  ctx: RunContext,
  w: ShareWorkload,
  onRun: (m: Measurement) => void = () => undefined,
): Promise<Measurement[]> {
  const topic = freshTopic('share');
  await createTopic(ctx, topic, SHARE_PARTITIONS);
  try {
    await producerPerformance(ctx, topic, { records: w.records, recordSize: SHARE_RECORD_BYTES, acks: '1', compression: 'none' });
    const out: Measurement[] = [];
    for (const consumers of w.consumerCounts) {
      const o = await observe(ctx.broker, () => consume(ctx, w.client, topic, `${topic}-g${consumers}`, consumers, w.records));
      const r = lastJson<{ records: number; bytes: number; seconds: number }>(o.run);
      const m = measurement(ctx, shareWorkloadId(consumers), o, r.records, r.bytes, r.seconds);
      onRun(m);
      out.push(m);
    }
    return out;
  } finally {
    await deleteTopic(ctx, topic);
  }
}

/** The Markdown table of medians per consumer count, Sluice beside Kafka. */
export function shareReport(runs: readonly Measurement[], w: ShareWorkload, reps: number): string {
  const clientName =
    w.client === 'java'
      ? 'the Java KafkaShareConsumer (kafka-clients 4.4.0, implicit acknowledgement)'
      : 'franz-go v1.22.3 share consumers (kgo.ShareGroup, each record Ack(AckAccept))';
  const rows = w.consumerCounts.map((n) => {
    const of = (b: string, f: (m: Measurement) => number): number =>
      median(runs.filter((m) => m.workload === shareWorkloadId(n) && m.broker === b).map(f));
    const perRecordUs = (b: string): number => of(b, (m) => (1e6 * m.generatorCpuSeconds) / m.records);
    const s = of('sluice', (m) => m.recordsPerSecond);
    const k = of('kafka', (m) => m.recordsPerSecond);
    return [
      `${n} consumer${n === 1 ? '' : 's'}`,
      Math.round(s).toLocaleString('en-US'),
      Math.round(k).toLocaleString('en-US'),
      (s / k).toFixed(2),
      of('sluice', (m) => m.mbPerSecond).toFixed(1),
      of('kafka', (m) => m.mbPerSecond).toFixed(1),
      of('sluice', (m) => m.brokerCpuSecondsPerGB ?? NaN).toFixed(2),
      of('kafka', (m) => m.brokerCpuSecondsPerGB ?? NaN).toFixed(2),
      perRecordUs('sluice').toFixed(2),
      perRecordUs('kafka').toFixed(2),
    ];
  });
  return [
    '# Share groups: Sluice vs Apache Kafka 4.4',
    '',
    `${w.records.toLocaleString('en-US')} records of ${SHARE_RECORD_BYTES} B written once into a ${SHARE_PARTITIONS}-partition topic (ProducerPerformance, acks=1), then read to the end by ${clientName} in one fresh share group per row (share.auto.offset.reset=earliest, every record ACCEPTed; the clock stops when every consumer has closed). ${reps} repetition(s), medians; broker and consumers share this 2-core machine. Consumer CPU is the whole consumer process's, start-up included.`,
    '',
    table(
      [
        'share consumers',
        'Sluice rec/s',
        'Kafka rec/s',
        'Sluice/Kafka',
        'Sluice MB/s',
        'Kafka MB/s',
        'Sluice broker CPU s/GB',
        'Kafka broker CPU s/GB',
        'consumer CPU µs/record (Sluice)',
        'consumer CPU µs/record (Kafka)',
      ],
      rows,
    ),
    '',
  ].join('\n');
}
