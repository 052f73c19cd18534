/** What the runner needs of each client library's workload. */
export interface Workload {
  /** The client library, as it appears in the history ("java", "librdkafka"). */
  readonly client: string;
  /** The writer name that prefixes its values. */
  readonly writer: string;
  /** Stops producing, waits (bounded) for what is in flight, fetches the group's committed offsets. */
  stop(): Promise<void>;
}

export interface WorkloadSettings {
  readonly bootstrap: string;
  readonly topic: string;
  readonly partitions: number;
  /** Time between two sends of one writer. */
  readonly intervalMs: number;
  /** Where the client's own log goes. */
  readonly logFile: string;
}
