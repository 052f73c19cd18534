import type { PartitionRegistration } from '../metadata-image.js';

/**
 * What the metadata and admin handlers need from the partition owners (the worker threads
 * that hold the logs): create, delete and reconfigure partition logs, and describe log dirs.
 * The composition root supplies the implementation that routes these to the workers; handlers
 * depend only on this interface, so they never see storage.
 */
export interface TopicRef {
  readonly name: string;
  /** Kafka's UUID text form (base64url, 22 chars). */
  readonly topicId: string;
}

/** Effective topic-level configuration, Kafka keys to string values (defaults included). */
export type TopicConfigValues = ReadonlyMap<string, string>;

export interface PartitionLogDescription {
  readonly topic: string;
  readonly partition: number;
  readonly sizeBytes: bigint;
  /** A current log: how far its end is behind the high watermark (0). A future log: how far behind the current log's end. */
  readonly offsetLag: bigint;
  /** The partition's future log, filled while it moves to this dir (AlterReplicaLogDirs). */
  readonly isFuture: boolean;
}

/** One partition of an AlterReplicaLogDirs request: move it to the log dir `path`. */
export interface LogDirMove {
  readonly topic: string;
  readonly partition: number;
  readonly path: string;
}

export interface LogDirDescription {
  readonly path: string;
  /** 0, or KAFKA_STORAGE_ERROR when the dir is offline. */
  readonly errorCode: number;
  readonly totalBytes: bigint;
  readonly usableBytes: bigint;
  readonly partitions: readonly PartitionLogDescription[];
}

export interface PartitionAdmin {
  /**
   * Opens these partitions of the topic (creating empty logs where missing) and gives each its
   * replica state from the metadata image. Idempotent for existing partitions; a newer
   * registration of an open partition updates its state (a leadership change).
   */
  createPartitions(topic: TopicRef, partitions: readonly PartitionRegistration[], config: TopicConfigValues): Promise<void>;
  /** Deletes every partition log of the topic (renamed `-delete`, removed asynchronously, as Kafka). */
  deleteTopic(topic: TopicRef, partitionCount: number): Promise<void>;
  /** Applies new topic-level configuration to the live logs (segment size, retention, …). */
  updateTopicConfig(topic: TopicRef, partitionCount: number, config: TopicConfigValues): Promise<void>;
  describeLogDirs(): Promise<LogDirDescription[]>;
  /** Starts (or cancels, or remembers for later) each partition's move to another log dir; an error code each, in order. */
  alterReplicaLogDirs(moves: readonly LogDirMove[]): Promise<number[]>;
}
