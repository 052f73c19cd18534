/**
 * The JSON the console's server answers and its page reads, shared by both so that a change to
 * one side fails to compile on the other. Offsets and timestamps are decimal strings: JSON
 * numbers would round them past 2^53.
 */

export interface BrokerView {
  readonly nodeId: number;
  readonly host: string;
  readonly port: number;
  readonly rack: string | null;
}

export interface OverviewView {
  readonly clusterId: string | null;
  /** -1 when the cluster names none. */
  readonly controllerId: number;
  readonly brokers: readonly BrokerView[];
  readonly topicCount: number;
  readonly partitionCount: number;
  /** Partitions whose ISR is smaller than their replica set. */
  readonly underReplicatedPartitions: number;
  /** Partitions without a leader. */
  readonly offlinePartitions: number;
}

export interface TopicSummaryView {
  readonly name: string;
  readonly internal: boolean;
  readonly partitions: number;
  readonly replicationFactor: number;
  readonly underReplicatedPartitions: number;
}

export interface PartitionView {
  readonly partition: number;
  /** -1 while the partition has no leader. */
  readonly leader: number;
  readonly replicas: readonly number[];
  readonly isr: readonly number[];
  /** null when the partition's leader could not answer ListOffsets. */
  readonly startOffset: string | null;
  readonly endOffset: string | null;
}

export interface ConfigView {
  readonly name: string;
  /** null for a sensitive value or one the broker does not tell. */
  readonly value: string | null;
  readonly source: string;
  readonly sensitive: boolean;
}

export interface TopicView {
  readonly name: string;
  readonly internal: boolean;
  readonly partitions: readonly PartitionView[];
  readonly configs: readonly ConfigView[];
}

export interface HeaderView {
  readonly key: string;
  readonly value: string | null;
}

export interface RecordView {
  readonly partition: number;
  readonly offset: string;
  /** Milliseconds since the epoch, as the record carries it. */
  readonly timestamp: string;
  /** The bytes decoded as UTF-8 (invalid sequences replaced); null for a null key or value. */
  readonly key: string | null;
  readonly value: string | null;
  readonly headers: readonly HeaderView[];
}

export interface MessagesView {
  readonly topic: string;
  readonly partition: number;
  /** Where this read started and where the next one would. */
  readonly fromOffset: string;
  readonly nextOffset: string;
  readonly startOffset: string;
  readonly endOffset: string;
  readonly records: readonly RecordView[];
}

/** What the server's event stream says each time it looks at the cluster. */
export type ClusterStatusEvent =
  | { readonly reachable: true; readonly at: number; readonly overview: OverviewView }
  | { readonly reachable: false; readonly at: number; readonly error: string };

/** The body of every non-2xx answer. */
export interface ErrorView {
  readonly error: string;
}
