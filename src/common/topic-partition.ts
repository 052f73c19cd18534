/** A partition of a topic, by name: what a worker owns, a log directory is named by and a request names. */
export interface TopicPartition {
  readonly topic: string;
  readonly partition: number;
}
