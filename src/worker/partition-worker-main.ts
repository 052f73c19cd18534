/**
 * Entry point of a partition worker thread (spawned by `partition-worker-host.ts`). Imports the
 * handler module, registers its ops, tells the host it is ready, then serves the command ring
 * until the shutdown command: in-flight commands are answered, close hooks run, the reply is
 * sent, timers are cleared and the thread exits when its event loop is empty.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Logger } from '../common/logger.js';
import { isHandlerOp } from '../ipc/command-codec.js';
import { RingChannelServer, type CommandHandler } from '../ipc/ring-channel.js';
import { HandlerModuleError } from './errors.js';
import type { HandlerModule, WorkerSetup } from './handler-module.js';
import { WORKER_READY, isPartitionWorkerData } from './partition-worker-data.js';
import { WorkerTicks } from './worker-ticks.js';

if (parentPort === null || !isPartitionWorkerData(workerData)) {
  throw new HandlerModuleError('partition-worker-main must run as a worker thread started by PartitionWorkerHost');
}
const data = workerData;
const host = parentPort;
const log = new Logger('partition-worker');

const handlers = new Map<number, CommandHandler>();
const closeHooks: (() => void | Promise<void>)[] = [];
const ticks = new WorkerTicks();

const setup: WorkerSetup = {
  workerIndex: data.workerIndex,
  workerCount: data.workerCount,
  options: data.handlerOptions,
  handle(op, handler) {
    if (!isHandlerOp(op)) throw new HandlerModuleError(`op ${op} is outside the handler range 0..0xfeff`);
    if (handlers.has(op)) throw new HandlerModuleError(`op ${op} already has a handler`);
    handlers.set(op, handler);
  },
  every(intervalMs, tick) {
    ticks.add(intervalMs, tick);
  },
  onClose(hook) {
    closeHooks.push(hook);
  },
};

const module: Partial<Record<keyof HandlerModule, unknown>> = await import(data.handlerModule);
const register = module.registerHandlers;
if (typeof register !== 'function') throw new HandlerModuleError(`${data.handlerModule} does not export a registerHandlers function`);
await (register as HandlerModule['registerHandlers'])(setup);

const server = new RingChannelServer(data.channel.commands, data.channel.replies, {
  handlers,
  waitBudgetMs: () => Math.min(data.maxIdleWaitMs, ticks.msUntilNextTick()),
  onShutdown: async () => {
    ticks.stop();
    for (const hook of closeHooks.reverse()) await hook();
  },
  onPostFailure: (op, error) => log.error('posted command failed', { worker: data.workerIndex, op, error: error instanceof Error ? error.stack : String(error) }),
});
host.postMessage(WORKER_READY);
await server.run();
