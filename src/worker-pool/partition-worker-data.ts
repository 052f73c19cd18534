/** What the host passes to each partition worker (`workerData`), and the one message back. */
import { MessagePort } from 'node:worker_threads';
import type { ChannelBuffers } from '../ipc/ring-channel.js';

export interface PartitionWorkerData {
  readonly workerIndex: number;
  readonly workerCount: number;
  readonly channel: ChannelBuffers;
  /** URL (href) of the op module. */
  readonly opModule: string;
  readonly moduleOptions: unknown;
  /** Longest the worker blocks in `Atomics.wait` when it has nothing else due. */
  readonly maxIdleWaitMs: number;
  /** Where the host sends the shared frames that commands name (`shared-frames.ts`); transferred. */
  readonly sharedFrames: MessagePort;
}

/** Posted once by the worker when its handlers are registered and it is serving. */
export const WORKER_READY = 'sluice:partition-worker-ready';

export function isPartitionWorkerData(value: unknown): value is PartitionWorkerData {
  if (typeof value !== 'object' || value === null) return false;
  const data = value as Partial<Record<keyof PartitionWorkerData, unknown>>;
  const channel = data.channel as Partial<Record<keyof ChannelBuffers, unknown>> | undefined;
  return (
    typeof data.workerIndex === 'number' &&
    typeof data.workerCount === 'number' &&
    typeof data.opModule === 'string' &&
    typeof data.maxIdleWaitMs === 'number' &&
    data.sharedFrames instanceof MessagePort &&
    typeof channel === 'object' &&
    channel !== null &&
    channel.commands instanceof SharedArrayBuffer &&
    channel.priority instanceof SharedArrayBuffer &&
    channel.replies instanceof SharedArrayBuffer &&
    channel.doorbell instanceof SharedArrayBuffer
  );
}
