/**
 * The consumer-group lag gauges, set afresh at each scrape from `consumerGroupLag` (main thread).
 * Per-partition series cost one series per group × partition, which a broker with many groups
 * of wide topics can make expensive to store: above `maxPartitionSeries` of them only the
 * per-group, per-topic sums are exported (warned about once), and those always are.
 */
import { Gauge, type Registry } from 'prom-client';
import type { Logger } from '../logger.js';
import type { GroupPartitionLag } from './consumer-lag.js';

type PartitionLabels = { group: string; topic: string; partition: string };

export class ConsumerLagMetrics {
  private readonly lag: Gauge<keyof PartitionLabels>;
  private readonly committed: Gauge<keyof PartitionLabels>;
  private readonly lagSum: Gauge<'group' | 'topic'>;
  private overLimit = false;

  constructor(
    registry: Registry,
    private readonly maxPartitionSeries: number,
    private readonly log: Logger,
  ) {
    const partitionLabels: Array<keyof PartitionLabels> = ['group', 'topic', 'partition'];
    this.lag = new Gauge({
      name: 'sluice_consumergroup_lag',
      help: 'Records a group is behind on a partition: its high watermark minus the committed offset, as kafka-consumer-groups computes LAG. Absent for partitions not hosted here, and for every partition when there are more than metrics.consumergroup.lag.max.partitions.',
      labelNames: partitionLabels,
      registers: [registry],
    });
    this.committed = new Gauge({
      name: 'sluice_consumergroup_committed_offset',
      help: 'The offset a group committed for a partition (kafka-consumer-groups CURRENT-OFFSET); absent above metrics.consumergroup.lag.max.partitions.',
      labelNames: partitionLabels,
      registers: [registry],
    });
    this.lagSum = new Gauge({
      name: 'sluice_consumergroup_lag_sum',
      help: 'sluice_consumergroup_lag summed over the partitions of a topic the group committed offsets for and this broker hosts; always exported.',
      labelNames: ['group', 'topic'],
      registers: [registry],
    });
  }

  /** Replaces every series with `lags`: groups, topics and partitions that are gone disappear. */
  update(lags: readonly GroupPartitionLag[]): void {
    this.lag.reset();
    this.committed.reset();
    this.lagSum.reset();
    const perPartition = lags.length <= this.maxPartitionSeries;
    if (!perPartition && !this.overLimit) {
      this.log.warn('consumer group partitions exceed metrics.consumergroup.lag.max.partitions: only per-topic lag sums are exported', {
        partitions: lags.length,
        limit: this.maxPartitionSeries,
      });
    }
    this.overLimit = !perPartition;
    const sums = new Map<string, Map<string, bigint>>();
    for (const l of lags) {
      if (perPartition) {
        const labels: PartitionLabels = { group: l.group, topic: l.topic, partition: String(l.partition) };
        this.committed.set(labels, Number(l.committedOffset));
        if (l.lag !== null) this.lag.set(labels, Number(l.lag));
      }
      if (l.lag === null) continue;
      let topics = sums.get(l.group);
      if (topics === undefined) sums.set(l.group, (topics = new Map<string, bigint>()));
      topics.set(l.topic, (topics.get(l.topic) ?? 0n) + l.lag);
    }
    for (const [group, topics] of sums) for (const [topic, sum] of topics) this.lagSum.set({ group, topic }, Number(sum));
  }
}
