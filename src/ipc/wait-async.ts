/**
 * `Atomics.waitAsync` (V8 ≥ 8.7, so every supported Node) is typed only in TypeScript's ES2024
 * lib, and the project compiles against ES2022: this declares the Int32Array overload alone.
 * It is the only way the main thread waits on shared memory — it never calls `Atomics.wait`.
 */
export type WaitAsyncResult = { async: false; value: 'not-equal' | 'timed-out' } | { async: true; value: Promise<'ok' | 'timed-out'> };

declare global {
  interface Atomics {
    waitAsync(typedArray: Int32Array, index: number, value: number, timeout?: number): WaitAsyncResult;
  }
}

/**
 * Resolves once `cells[index]` is notified or no longer holds `expected` (or after `timeoutMs`).
 * Node does not count a pending `waitAsync` as work: an endless wait does not keep the process
 * alive (what a broker's reply pump wants), and a finite one is backed by a timer that does, so
 * that the timeout is honoured even when nothing else is scheduled.
 */
export async function waitWhileEqual(cells: Int32Array, index: number, expected: number, timeoutMs = Infinity): Promise<void> {
  // Sequentially consistent like every Atomics operation: the comparison and the enqueue on the
  // waiter list are one step, so a store + notify that lands before it is seen as 'not-equal'.
  const result = Atomics.waitAsync(cells, index, expected, timeoutMs);
  if (!result.async) return;
  if (timeoutMs === Infinity) {
    await result.value;
    return;
  }
  const keepAlive = setTimeout(() => undefined, timeoutMs + 1);
  try {
    await result.value;
  } finally {
    clearTimeout(keepAlive);
  }
}
