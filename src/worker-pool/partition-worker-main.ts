/**
 * Entry point of a partition worker thread (spawned by `partition-worker-host.ts`). Imports the
 * op module, registers its ops, tells the host it is ready, then serves the command ring
 * until the shutdown command: in-flight commands are answered, close hooks run, the reply is
 * sent, timers are cleared and the thread exits when its event loop is empty.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Logger } from '../common/logger.js';
import { isHandlerOp } from '../ipc/command-codec.js';
import { RingChannelServer, type CommandHandler } from '../ipc/ring-channel.js';
import { OpModuleError } from './errors.js';
import type { WorkerOpModule, WorkerSetup } from './op-module.js';
import { WORKER_READY, isPartitionWorkerData } from './partition-worker-data.js';
import { receiveSharedFramesOn } from './shared-frames.js';
import { WorkerTicks } from './worker-ticks.js';

if (parentPort === null || !isPartitionWorkerData(workerData)) {
  throw new OpModuleError('partition-worker-main must run as a worker thread started by PartitionWorkerHost');
}
const data = workerData;
const host = parentPort;
const log = new Logger('partition-worker');
receiveSharedFramesOn(data.sharedFrames);

const handlers = new Map<number, CommandHandler>();
const closeHooks: (() => void | Promise<void>)[] = [];
const ticks = new WorkerTicks();

const setup: WorkerSetup = {
  workerIndex: data.workerIndex,
  workerCount: data.workerCount,
  options: data.moduleOptions,
  handle(op, handler) {
    if (!isHandlerOp(op)) throw new OpModuleError(`op ${op} is outside the handler range 0..0xfeff`);
    if (handlers.has(op)) throw new OpModuleError(`op ${op} already has a handler`);
    handlers.set(op, handler);
  },
  serve(op, impl) {
    // Decoding and the synchronous part of `impl` run while the body is still ring memory.
    setup.handle(op.id, ({ body }) => {
      const reply = impl(op.request.decode(body));
      return reply instanceof Promise ? reply.then((r) => op.reply.encode(r)) : op.reply.encode(reply);
    });
  },
  every(intervalMs, tick) {
    ticks.add(intervalMs, tick);
  },
  onClose(hook) {
    closeHooks.push(hook);
  },
};

const module = (await import(data.opModule)) as Partial<Record<keyof WorkerOpModule, unknown>>;
const register = module.registerOps;
if (typeof register !== 'function') throw new OpModuleError(`${data.opModule} does not export a registerOps function`);
await (register as WorkerOpModule['registerOps'])(setup);

const server = new RingChannelServer(data.channel, {
  handlers,
  waitBudgetMs: () => Math.min(data.maxIdleWaitMs, ticks.msUntilNextTick()),
  onShutdown: async () => {
    ticks.stop();
    for (const hook of closeHooks.reverse()) await hook();
  },
  onPostFailure: (op, error) =>
    log.error('posted command failed', { worker: data.workerIndex, op, error: error instanceof Error ? error.stack : String(error) }),
});
host.postMessage(WORKER_READY);
await server.run();
