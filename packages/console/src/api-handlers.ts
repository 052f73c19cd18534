/**
 * The console's JSON API, one function per view, each over a `ClusterReader`: what the
 * Overview, Topics, topic and Messages pages show. They only read; nothing here changes the cluster.
 */
import { configSourceName, type ClusterMetadata, type PartitionMetadata, type TopicMetadata } from '@sluice/client/index.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import type { MessagesView, OverviewView, PartitionView, TopicSummaryView, TopicView } from './api-types.js';
import { ApiError } from './api-errors.js';
import type { ClusterReader } from './cluster-reader.js';
import { recordView } from './record-view.js';

/** How many records one Messages read returns at most, whatever the page asks. */
export const MAX_RECORDS = 500;

function underReplicated(p: PartitionMetadata): boolean {
  return p.isr.length < p.replicas.length;
}

function offline(p: PartitionMetadata): boolean {
  return p.leaderId < 0;
}

/** Topics the metadata describes; one the broker answered with an error (being deleted, unauthorized) is left out. */
function describedTopics(metadata: ClusterMetadata): TopicMetadata[] {
  return [...metadata.topics.values()].filter((t) => t.errorCode === ErrorCode.NONE).sort((a, b) => a.name.localeCompare(b.name));
}

export function overviewOf(metadata: ClusterMetadata): OverviewView {
  const described = describedTopics(metadata);
  const partitions = described.flatMap((t) => t.partitions);
  return {
    clusterId: metadata.clusterId,
    controllerId: metadata.controllerId,
    brokers: [...metadata.brokers.values()]
      .sort((a, b) => a.nodeId - b.nodeId)
      .map((b) => ({ nodeId: b.nodeId, host: b.host, port: b.port, rack: b.rack })),
    topicCount: described.length,
    partitionCount: partitions.length,
    underReplicatedPartitions: partitions.filter(underReplicated).length,
    offlinePartitions: partitions.filter(offline).length,
  };
}

export async function overview(reader: ClusterReader): Promise<OverviewView> {
  return overviewOf(await reader.metadata());
}

export async function topics(reader: ClusterReader): Promise<TopicSummaryView[]> {
  return describedTopics(await reader.metadata()).map((t) => ({
    name: t.name,
    internal: t.isInternal,
    partitions: t.partitions.length,
    replicationFactor: t.partitions[0]?.replicas.length ?? 0,
    underReplicatedPartitions: t.partitions.filter(underReplicated).length,
  }));
}

async function describedTopic(reader: ClusterReader, name: string): Promise<TopicMetadata> {
  const topic = (await reader.metadata()).topics.get(name);
  if (topic === undefined || topic.errorCode === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION) throw new ApiError(404, `no topic '${name}'`);
  return topic;
}

export async function topic(reader: ClusterReader, name: string): Promise<TopicView> {
  const described = await describedTopic(reader, name);
  // Offsets are asked only of partitions with a leader: one offline partition must not hide the others' offsets.
  const online = described.partitions.filter((p) => !offline(p)).map((p) => p.partition);
  const [starts, ends, configs] = await Promise.all([
    reader.offsets(name, online, 'earliest'),
    reader.offsets(name, online, 'latest'),
    reader.topicConfigs(name),
  ]);
  const partitions: PartitionView[] = described.partitions.map((p) => ({
    partition: p.partition,
    leader: p.leaderId,
    replicas: p.replicas,
    isr: p.isr,
    startOffset: starts.get(p.partition)?.toString() ?? null,
    endOffset: ends.get(p.partition)?.toString() ?? null,
  }));
  return {
    name,
    internal: described.isInternal,
    partitions,
    configs: configs
      .map((c) => ({ name: c.name, value: c.isSensitive ? null : c.value, source: configSourceName(c.source), sensitive: c.isSensitive }))
      .sort((a, b) => a.name.localeCompare(b.name)),
  };
}

/** Where a Messages read starts: an offset, or `end` for the last `limit` records. */
export type ReadFrom = { readonly offset: bigint } | 'end';

export async function messages(
  reader: ClusterReader,
  name: string,
  partition: number,
  from: ReadFrom,
  limit: number,
): Promise<MessagesView> {
  const described = await describedTopic(reader, name);
  if (!described.partitions.some((p) => p.partition === partition)) {
    throw new ApiError(404, `topic '${name}' has no partition ${partition}`);
  }
  const count = Math.min(limit, MAX_RECORDS);
  const [starts, ends] = await Promise.all([reader.offsets(name, [partition], 'earliest'), reader.offsets(name, [partition], 'latest')]);
  const start = starts.get(partition) ?? 0n;
  const end = ends.get(partition) ?? 0n;
  const wanted = from === 'end' ? end - BigInt(count) : from.offset;
  const fromOffset = wanted < start ? start : wanted > end ? end : wanted;
  const records = await reader.read(name, partition, fromOffset, end, count);
  const last = records.at(-1);
  return {
    topic: name,
    partition,
    fromOffset: fromOffset.toString(),
    nextOffset: (last === undefined ? fromOffset : last.offset + 1n).toString(),
    startOffset: start.toString(),
    endOffset: end.toString(),
    records: records.map(recordView),
  };
}
