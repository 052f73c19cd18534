/**
 * The contract between the generic partition worker and the module that gives it its work (the
 * storage engine's partition operations; test handlers in tests). The host names the module by
 * URL; the worker imports it and calls its `registerHandlers` export once, before serving.
 *
 * ```ts
 * export const registerHandlers: RegisterHandlers = (setup) => {
 *   setup.handle(OP_APPEND, ({ body }) => { writeSync(fd, body); });   // body: a view over ring memory
 *   setup.every(1000, () => flushDirtySegments());
 *   setup.onClose(() => closeAllSegments());
 * };
 * ```
 */
import type { CommandHandler } from '../ipc/ring-channel.js';

export interface WorkerSetup {
  readonly workerIndex: number;
  readonly workerCount: number;
  /** `handlerOptions` as given to the host, structured-cloned: validate before use. */
  readonly options: unknown;
  /** Serves `op` (0..0xfeff; higher ops belong to the transport). One handler per op. */
  handle(op: number, handler: CommandHandler): void;
  /** Runs `tick` every `intervalMs`; the worker's idle wait is cut short to keep it on time. */
  every(intervalMs: number, tick: () => void): void;
  /** Runs at clean shutdown after in-flight commands are answered, in reverse registration order. */
  onClose(hook: () => void | Promise<void>): void;
}

export type RegisterHandlers = (setup: WorkerSetup) => void | Promise<void>;

/** What a handler module exports. */
export interface HandlerModule {
  readonly registerHandlers: RegisterHandlers;
}
