/** The key under which fetches wait for a partition and appends announce it. */
export function partitionKey(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`;
}
