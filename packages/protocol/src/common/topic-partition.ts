/** A partition of a topic, by name: what a worker owns, a log directory is named by and a request names. */
export interface TopicPartition {
  readonly topic: string;
  readonly partition: number;
}

/** The key of a topic-partition in a map or set: `\u0000` cannot occur in a topic name. */
export function topicPartitionKey(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`;
}
