/**
 * Kafka's answer to a request that names the same topic more than once (CreateTopics,
 * CreatePartitions, DeleteTopics): one INVALID_REQUEST result for that topic, in the place of
 * its first entry, and none of its entries acted on — applying one of them would pick a winner
 * the client did not choose.
 */

/**
 * Answers each distinct key once, in request order: `duplicate` for a key named more than once,
 * else `answer`, awaited one entry at a time so that side effects keep the request's order.
 */
export async function answerEachOnce<E, R>(
  entries: readonly E[],
  keyOf: (entry: E) => string,
  duplicate: (entry: E) => R,
  answer: (entry: E) => Promise<R>,
): Promise<R[]> {
  const counts = new Map<string, number>();
  for (const entry of entries) counts.set(keyOf(entry), (counts.get(keyOf(entry)) ?? 0) + 1);
  const results: R[] = [];
  const seen = new Set<string>();
  for (const entry of entries) {
    const key = keyOf(entry);
    if (seen.has(key)) continue;
    seen.add(key);
    results.push(counts.get(key)! > 1 ? duplicate(entry) : await answer(entry));
  }
  return results;
}
