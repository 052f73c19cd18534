/**
 * Which fetcher copies which followed partition (Kafka's `ReplicaFetcherManager`): partitions
 * are spread over `num.replica.fetchers` fetchers per leader by a hash of the topic-partition,
 * so one busy partition does not hold up the others of its leader. A partition changing leader
 * moves to the new leader's fetcher; a fetcher left without partitions stops.
 */
import type { Logger } from '../common/logger.js';
import { ReplicaFetcher, type FetcherSettings, type FollowedPartition, type LeaderEndpoint } from './replica-fetcher.js';
import type { ReplicaLogs } from './replica-logs.js';

function fetcherIdOf(topic: string, partition: number, fetchers: number): number {
  let h = 0;
  for (let i = 0; i < topic.length; i++) h = (Math.imul(h, 31) + topic.charCodeAt(i)) | 0;
  return Math.abs((Math.imul(31, h) + partition) | 0) % fetchers;
}

export class ReplicaFetcherManager {
  private readonly fetchers = new Map<string, ReplicaFetcher>();

  constructor(
    private readonly logs: ReplicaLogs,
    private readonly settings: FetcherSettings,
    private readonly numFetchers: number,
    private readonly log: Logger,
  ) {}

  /** Follows `p` from `leader`, leaving whichever fetcher had it before. */
  async follow(p: FollowedPartition, leader: LeaderEndpoint): Promise<void> {
    this.unfollow(p.topic, p.partition);
    const id = `${leader.id}/${leader.host}:${leader.port}/${fetcherIdOf(p.topic, p.partition, this.numFetchers)}`;
    let fetcher = this.fetchers.get(id);
    if (fetcher === undefined) {
      fetcher = new ReplicaFetcher(leader, this.logs, this.settings, this.log);
      this.fetchers.set(id, fetcher);
    }
    await fetcher.add(p);
  }

  unfollow(topic: string, partition: number): void {
    for (const [id, fetcher] of this.fetchers) {
      if (!fetcher.has(topic, partition)) continue;
      fetcher.remove(topic, partition);
      if (fetcher.size === 0) {
        fetcher.stop();
        this.fetchers.delete(id);
      }
    }
  }

  close(): void {
    for (const f of this.fetchers.values()) f.stop();
    this.fetchers.clear();
  }
}
