/**
 * The contract between the generic partition worker and the module that gives it its work (the
 * storage engine's partition operations; test ops in tests). The host names the module by
 * URL; the worker imports it and calls its `registerOps` export once, before serving.
 *
 * ```ts
 * export const registerOps: RegisterOps = (setup) => {
 *   setup.serve(Ops.append, (entries) => entries.map(appendOne));   // records: views over ring memory
 *   setup.every(1000, () => flushDirtySegments());
 *   setup.onClose(() => closeAllSegments());
 * };
 * ```
 */
import type { CommandHandler } from '../ipc/ring-channel.js';
import type { WorkerOp } from './worker-op.js';

export interface WorkerSetup {
  readonly workerIndex: number;
  readonly workerCount: number;
  /** `moduleOptions` as given to the host, structured-cloned: validate before use. */
  readonly options: unknown;
  /** Serves a declared op with `impl` (see `worker-op.ts`). One implementation per op. */
  serve<Req, Rep>(op: WorkerOp<Req, Rep>, impl: (request: Req) => Rep | Promise<Rep>): void;
  /** Serves raw op number `op` (0..0xfeff; higher ops belong to the transport), bodies as bytes. */
  handle(op: number, handler: CommandHandler): void;
  /** Runs `tick` every `intervalMs`; the worker's idle wait is cut short to keep it on time. */
  every(intervalMs: number, tick: () => void): void;
  /** Runs at clean shutdown after in-flight commands are answered, in reverse registration order. */
  onClose(hook: () => void | Promise<void>): void;
}

export type RegisterOps = (setup: WorkerSetup) => void | Promise<void>;

/** What an op module exports. */
export interface WorkerOpModule {
  readonly registerOps: RegisterOps;
}
