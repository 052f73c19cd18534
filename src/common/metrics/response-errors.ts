/**
 * Finds the error codes in a decoded response, as Kafka's `AbstractResponse.errorCounts()` does
 * for its ErrorsPerSec metric, but generically: every `errorCode` field holding a non-zero
 * number, at any depth (top level, per topic, per partition, per member…). Byte fields
 * (record batches, file ranges' buffers) are not entered, so the walk costs the response's
 * structure, never its records.
 */

function isWalkable(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !ArrayBuffer.isView(value);
}

/** Calls `onError` once for every non-zero `errorCode` in `response`. */
export function forEachErrorCode(response: unknown, onError: (errorCode: number) => void): void {
  if (!isWalkable(response)) return;
  if (Array.isArray(response)) {
    for (const item of response as readonly unknown[]) forEachErrorCode(item, onError);
    return;
  }
  // for…in rather than Object.entries: no array per object visited.
  const fields = response as Readonly<Record<string, unknown>>;
  for (const key in fields) {
    const value = fields[key];
    if (key === 'errorCode') {
      if (typeof value === 'number' && value !== 0) onError(value);
    } else if (isWalkable(value)) {
      forEachErrorCode(value, onError);
    }
  }
}
