/**
 * `sluice tune --observe --client-id X`: watches a running producer for `--seconds` (or until
 * SIGINT) through the broker's per-client produce metrics (`--metrics-url`) and, with `--topic`,
 * the topic's appended records through ListOffsets, then prints how the producer batches
 * (`@sluice/tune`'s `observe.ts`).
 */
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { KafkaConsumerClient, type Positions } from '@sluice/client/consumer-client.js';
import type { KafkaCluster } from '@sluice/client/cluster.js';
import { scrapeMetrics } from '@sluice/tune/broker-batch-stats.js';
import { formatObservation, observeClient, type Observation, type TopicRate } from '@sluice/tune/observe.js';
import type { MetricsScrape } from '@sluice/tune/prometheus-text.js';
import { parseOptions, required, UsageError, withCluster, writeOut } from './command-support.js';

export const OBSERVE_USAGE = `usage: sluice tune --observe --client-id ID --bootstrap-server HOST:PORT [--metrics-url http://HOST:PORT/metrics]
         [--seconds 10] [--topic T] [--json]
  summarises how the producer with client id ID batches over --seconds (or until Ctrl-C), from the broker's per-client
  produce metrics (Sluice's metrics.listener); --topic adds the topic's appended records (any broker)
`;

const OPTIONS = {
  observe: { type: 'boolean' },
  'client-id': { type: 'string' },
  'bootstrap-server': { type: 'string' },
  'metrics-url': { type: 'string' },
  seconds: { type: 'string' },
  topic: { type: 'string' },
  json: { type: 'boolean' },
} as const;

const MAX_SECONDS = 24 * 3600;

export interface ObserveOptions {
  readonly clientId: string;
  readonly bootstrap: string;
  readonly metricsUrl: string | null;
  readonly seconds: number;
  readonly topic: string | null;
  readonly json: boolean;
}

export function parseObserveOptions(args: string[]): ObserveOptions {
  const o = parseOptions(args, OPTIONS);
  const seconds = Number(o.seconds ?? '10');
  if (!(seconds > 0 && seconds <= MAX_SECONDS))
    throw new UsageError(`--seconds must be a positive number up to ${MAX_SECONDS}, not '${o.seconds ?? ''}'`);
  return {
    clientId: required(o['client-id'], 'client-id'),
    bootstrap: required(o['bootstrap-server'], 'bootstrap-server'),
    metricsUrl: o['metrics-url'] ?? null,
    seconds,
    topic: o.topic ?? null,
    json: o.json === true,
  };
}

export async function runObserve(args: string[]): Promise<void> {
  const options = parseObserveOptions(args);
  // Held for the whole command, not only the window: a Ctrl-C that lands while the first scrape
  // is taken, or just after the window, must end the window, never kill the command.
  const stop = new AbortController();
  const interrupted = (): void => stop.abort();
  process.on('SIGINT', interrupted);
  try {
    await observe(options, stop.signal);
  } finally {
    process.off('SIGINT', interrupted);
  }
}

async function observe(options: ObserveOptions, stop: AbortSignal): Promise<void> {
  const { observation, topic } = await withCluster({ 'bootstrap-server': options.bootstrap }, async (cluster) => {
    const offsets = options.topic === null ? null : await TopicEnds.start(cluster, options.topic);
    const before = await scrapeOrNull(options.metricsUrl);
    const started = performance.now();
    process.stderr.write(
      `sluice tune: observing client id '${options.clientId}' for ${options.seconds} s (Ctrl-C ends the window early)\n`,
    );
    await windowEnd(options.seconds, stop);
    const after = await scrapeOrNull(options.metricsUrl);
    const seconds = Math.round((performance.now() - started) / 100) / 10;
    const rate: TopicRate | null = offsets === null ? null : { topic: options.topic!, records: await offsets.appendedSince(), seconds };
    const seen: Observation =
      before === null || after === null
        ? { kind: 'unsupported', reason: 'no --metrics-url given' }
        : observeClient(before, after, options.clientId, seconds);
    return { observation: seen, topic: rate };
  });
  await writeOut(options.json ? `${JSON.stringify({ observation, topic }, null, 2)}\n` : formatObservation(observation, topic));
}

/** After `seconds`, or at the first SIGINT: a user watching a producer may have seen enough. */
async function windowEnd(seconds: number, stop: AbortSignal): Promise<void> {
  try {
    await sleep(seconds * 1000, undefined, { signal: stop });
  } catch (err) {
    if (!stop.aborted) throw err;
  }
}

async function scrapeOrNull(url: string | null): Promise<MetricsScrape | null> {
  return url === null ? null : scrapeMetrics(url);
}

/** The topic's end offsets at the start, to count what was appended by the end. */
class TopicEnds {
  private constructor(
    private readonly consumer: KafkaConsumerClient,
    private readonly partitions: readonly number[],
    private readonly start: Positions,
  ) {}

  static async start(cluster: KafkaCluster, topic: string): Promise<TopicEnds> {
    const consumer = new KafkaConsumerClient(cluster, topic);
    const partitions = (await consumer.partitions()).partitions.map((p) => p.partition);
    return new TopicEnds(consumer, partitions, await consumer.listOffsets(partitions, 'latest'));
  }

  async appendedSince(): Promise<number> {
    const end = await this.consumer.listOffsets(this.partitions, 'latest');
    let records = 0n;
    for (const [partition, offset] of end) records += offset - (this.start.get(partition) ?? offset);
    return Number(records);
  }
}
