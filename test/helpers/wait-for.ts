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
