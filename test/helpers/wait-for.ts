import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Polls `probe` every `intervalMs` (100 ms unless told) until it returns (or resolves to)
 * something other than undefined. In-process unit tests, whose conditions turn within a few
 * milliseconds, pass a shorter interval so that each wait does not cost a tenth of a second.
 */
export async function waitFor<T>(
  what: string,
  timeoutMs: number,
  probe: () => T | undefined | Promise<T | undefined>,
  intervalMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}

/** For probes that are a condition: true when it holds, undefined (wait on) while it does not. */
export const when = (condition: boolean): true | undefined => (condition ? true : undefined);

/**
 * Retries `attempt` through waitFor until it resolves, for an assertion that passes or a request
 * that succeeds a moment later; on timeout the error carries the attempt's last failure.
 */
export async function eventually<T>(what: string, timeoutMs: number, attempt: () => Promise<T>, intervalMs = 100): Promise<T> {
  let last: unknown;
  const passed = await waitFor(
    what,
    timeoutMs,
    () =>
      attempt().then(
        (value) => ({ value }),
        (err: unknown) => {
          last = err;
          return undefined;
        },
      ),
    intervalMs,
  ).catch((err: unknown) => {
    throw new Error(`${(err as Error).message}: ${last instanceof Error ? last.message : String(last)}`);
  });
  return passed.value;
}
