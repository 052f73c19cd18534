/**
 * Main-thread owner of the partition workers: gives each of `num.partition.workers` a command
 * ring and a reply ring and starts its thread, routes requests to the worker that owns a
 * partition, notices a worker that dies, and shuts them all down cleanly. Main thread only;
 * never blocks.
 *
 * With `startOwnersOf`, a worker owning none of the partitions found on disk starts its thread
 * only when the first request is routed to it (an isolate costs ~18 MiB and ~0.4 s of CPU): that
 * request waits in its ring meanwhile. Until then it hosts no logs, so broadcasts go only to the
 * started workers (`startedWorkers()`), and `post` leaves it asleep.
 *
 * A dead worker is not restarted here: its pending requests reject with
 * `PartitionWorkerUnavailableError` (KAFKA_STORAGE_ERROR), and so does every later request for
 * its partitions, at once. The other workers carry on.
 */
import { availableParallelism } from 'node:os';
import { MessageChannel, Worker } from 'node:worker_threads';
import type { RingOccupancy, WorkerCommandCount } from '../common/metrics/scrape.js';
import { isHandlerOp } from '../ipc/command-codec.js';
import {
  DEFAULT_RING_CAPACITY,
  EMPTY_BODY,
  RingChannelClient,
  copyReply,
  createChannelBuffers,
  type ChannelBuffers,
  type CommandLane,
  type MessageBody,
  type ReplyDecoder,
} from '../ipc/ring-channel.js';
import { HEADER_BYTES, HEAD_INDEX, TAIL_INDEX } from '../ipc/ring-layout.js';
import type { SharedFrameHold } from '@sluice/protocol/frame-buffer-pool.js';
import { PartitionWorkerUnavailableError, type WorkerUnavailableReason } from './errors.js';
import { WORKER_READY, type PartitionWorkerData } from './partition-worker-data.js';
import { topicHash, workerForHash } from './partition-routing.js';
import { SharedFrameSender } from './shared-frames.js';
import type { WorkerOp } from './worker-op.js';
import type { TopicPartition } from '@sluice/protocol/common/topic-partition.js';

export interface PartitionWorkerHostOptions {
  /** URL of the compiled op module (exports `registerOps`, see `op-module.ts`). */
  readonly opModule: URL;
  /** `num.partition.workers`; default `os.availableParallelism()`. */
  readonly workers?: number;
  /** Data bytes per ring (per direction, per worker); default 8 MiB. Bounds the largest message. */
  readonly ringCapacity?: number;
  /** Structured-cloned to every worker's `registerOps` as `setup.options`. */
  readonly moduleOptions?: unknown;
  /** Longest a worker blocks in `Atomics.wait` with nothing due; default 50 ms. */
  readonly maxIdleWaitMs?: number;
  /** How long `close()` lets a worker finish before terminating it; default 30 s. */
  readonly shutdownTimeoutMs?: number;
  /** Called once when a worker stops serving other than through `close()`. */
  readonly onWorkerLost?: (error: PartitionWorkerUnavailableError) => void;
  /**
   * The partitions whose logs are on disk: their owners start at once (to load and recover
   * them), the other workers on their first request. Undefined: every worker starts at once.
   */
  readonly startOwnersOf?: readonly TopicPartition[];
}

interface WorkerSlot {
  readonly index: number;
  /** The thread's `workerData`, but for the port it is sent shared frames on (one per thread). */
  readonly data: Omit<PartitionWorkerData, 'sharedFrames'>;
  /** Null until the worker is started (at once, or by its first request). */
  thread: Worker | null;
  /** Sends the started thread the shared frames its commands name. */
  frames: SharedFrameSender | null;
  /** Whether the started thread has registered its handlers. */
  ready: boolean;
  readonly channel: RingChannelClient;
  /** The rings' shared memory, read (never written) here for their occupancy. */
  readonly buffers: ChannelBuffers;
  exited: Promise<void>;
  /** Set once the worker no longer serves; later requests reject with it at once. */
  failure: PartitionWorkerUnavailableError | null;
}

type StartedSlot = WorkerSlot & { thread: Worker };

/** The commands sent with one op number: its name once a declaration named it, else the number. */
interface OpCount {
  name: string;
  requests: number;
  posts: number;
}

const DEFAULT_MAX_IDLE_WAIT_MS = 50;
/** Routing runs for every partition of every request; hashing the UTF-8 of its topic each time would allocate. */
const MAX_CACHED_TOPIC_HASHES = 10_000;
const DEFAULT_SHUTDOWN_TIMEOUT_MS = 30_000;

export class PartitionWorkerHost {
  private readonly slots: readonly WorkerSlot[];
  private readonly options: PartitionWorkerHostOptions;
  private closing: Promise<void> | null = null;
  private startHook: ((workerIndex: number) => void) | null = null;
  private lostHook: ((workerIndex: number) => void) | null = null;
  private readonly topicHashes = new Map<string, number>();
  /** Commands sent to any worker, by op number (one Map lookup and an increment per command). */
  private readonly sent = new Map<number, OpCount>();

  private constructor(slots: readonly WorkerSlot[], options: PartitionWorkerHostOptions) {
    this.slots = slots;
    this.options = options;
  }

  /**
   * Creates every worker's rings, starts the workers `startOwnersOf` calls for (all without it)
   * and resolves once each of those has registered its handlers.
   */
  static async start(options: PartitionWorkerHostOptions): Promise<PartitionWorkerHost> {
    const count = options.workers ?? availableParallelism();
    if (!Number.isInteger(count) || count < 1) throw new RangeError(`num.partition.workers must be a positive integer, got ${count}`);
    const slots: WorkerSlot[] = [];
    for (let index = 0; index < count; index++) {
      const channel = createChannelBuffers(options.ringCapacity ?? DEFAULT_RING_CAPACITY);
      const data: WorkerSlot['data'] = {
        workerIndex: index,
        workerCount: count,
        channel,
        opModule: options.opModule.href,
        moduleOptions: options.moduleOptions,
        maxIdleWaitMs: options.maxIdleWaitMs ?? DEFAULT_MAX_IDLE_WAIT_MS,
      };
      const slot: WorkerSlot = {
        index,
        data,
        thread: null,
        frames: null,
        ready: false,
        channel: new RingChannelClient(channel),
        buffers: channel,
        exited: Promise.resolve(),
        failure: null,
      };
      slots.push(slot);
    }
    const host = new PartitionWorkerHost(slots, options);
    const owners =
      options.startOwnersOf === undefined ? null : new Set(options.startOwnersOf.map((p) => host.workerFor(p.topic, p.partition)));
    const starting = slots.filter((slot) => owners === null || owners.has(slot.index));
    try {
      await Promise.all(starting.map((slot) => host.launch(slot)));
    } catch (error) {
      // The workers stopped here are not lost: start() fails instead.
      for (const slot of slots) slot.failure ??= error as PartitionWorkerUnavailableError;
      await Promise.all(starting.map((slot) => slot.thread!.terminate()));
      for (const slot of slots) slot.channel.fail(error as Error);
      throw error;
    }
    return host;
  }

  /**
   * Starts the slot's thread; resolves once it has registered its handlers. A failure to start
   * rejects and also loses the worker (its requests reject with the same reason).
   */
  private launch(slot: WorkerSlot): Promise<void> {
    const index = slot.index;
    const frames = new MessageChannel();
    const workerData: PartitionWorkerData = { ...slot.data, sharedFrames: frames.port2 };
    const thread = new Worker(new URL('./partition-worker-main.js', import.meta.url), { workerData, transferList: [frames.port2] });
    slot.thread = thread;
    const sender = new SharedFrameSender(frames.port1);
    slot.frames = sender;
    slot.exited = new Promise((resolve) => thread.once('exit', () => resolve()));
    thread.once('exit', () => sender.close());
    const ready = new Promise<void>((resolve, reject) => {
      const onExit = (code: number): void =>
        reject(new PartitionWorkerUnavailableError(index, 'start-failed', `exited with code ${code} while starting`));
      thread.once('exit', onExit);
      thread.once('error', (error) => reject(new PartitionWorkerUnavailableError(index, 'start-failed', error.message, { cause: error })));
      thread.once('message', (message: unknown) => {
        if (message !== WORKER_READY) return;
        slot.ready = true;
        thread.off('exit', onExit);
        resolve();
      });
    });
    thread.on('error', (error) => this.lose(slot, slot.ready ? 'crashed' : 'start-failed', error.message, error));
    thread.on('exit', (code) =>
      this.lose(slot, slot.ready ? 'exited' : 'start-failed', `exited with code ${code}${slot.ready ? '' : ' while starting'}`, undefined),
    );
    this.startHook?.(index);
    return ready;
  }

  /**
   * Calls `hook` as each worker started on its first request starts, before that request is
   * written to its ring: what the hook sends the worker reaches it first (say, state it missed
   * while it had not started).
   */
  onWorkerStart(hook: (workerIndex: number) => void): void {
    this.startHook = hook;
  }

  /**
   * Calls `hook` once when a worker stops serving other than through `close()`, after its pending
   * requests have been rejected (as `onWorkerLost` in the options, for its owner's state).
   */
  onWorkerLost(hook: (workerIndex: number) => void): void {
    this.lostHook = hook;
  }

  /** `num.partition.workers`. */
  get size(): number {
    return this.slots.length;
  }

  /** The index of the worker that owns `partition` of `topicKey` (see `partition-routing.ts`). */
  workerFor(topicKey: string, partition: number): number {
    let hash = this.topicHashes.get(topicKey);
    if (hash === undefined) {
      // Bounded: names come from requests, and a client may send any number of them.
      if (this.topicHashes.size >= MAX_CACHED_TOPIC_HASHES) this.topicHashes.clear();
      hash = topicHash(topicKey);
      this.topicHashes.set(topicKey, hash);
    }
    return workerForHash(hash, partition, this.slots.length);
  }

  /** The largest command body a worker's ring takes (all workers' rings are alike). */
  get maxCommandBodyBytes(): number {
    return this.slots[0]!.channel.maxBodyBytes;
  }

  /** Whether the worker still takes requests. */
  isAvailable(workerIndex: number): boolean {
    return this.slot(workerIndex).failure === null;
  }

  /** Whether the worker's thread has been started (it may still be loading its op module). */
  isStarted(workerIndex: number): boolean {
    return this.slot(workerIndex).thread !== null;
  }

  /** The indexes of the started workers: the only ones that can host a log. */
  startedWorkers(): number[] {
    return this.slots.filter((slot) => slot.thread !== null).map((slot) => slot.index);
  }

  /**
   * Sends `op` to worker `workerIndex`; resolves with its reply body (a copy). Rejects with the
   * handler's `KafkaError`, with `RingMessageTooLargeError` for a body that can never fit a ring,
   * or with `PartitionWorkerUnavailableError` when the worker died or the host is closing.
   */
  request(workerIndex: number, op: number, body?: MessageBody): Promise<Uint8Array> {
    return this.requestDecoded(workerIndex, op, body ?? EMPTY_BODY, copyReply);
  }

  /** `request`, resolving with `decode` applied to the reply body while it is still in the ring. */
  requestDecoded<T>(workerIndex: number, op: number, body: MessageBody, decode: ReplyDecoder<T>): Promise<T> {
    return this.requestOn(workerIndex, op, body, decode, 'ordered');
  }

  /**
   * Calls declared op `op` on worker `workerIndex` (see `worker-op.ts`), on the lane its
   * declaration names; rejects as `request` does.
   */
  call<Req, Rep>(workerIndex: number, op: WorkerOp<Req, Rep>, request: Req): Promise<Rep> {
    const body = op.request.encode(request);
    const decode = (reply: Uint8Array): Rep => op.reply.decode(reply);
    const frames = body.sharedFrames;
    if (frames === undefined) return this.requestOn(workerIndex, op.id, body, decode, op.lane, undefined, op.name);
    return this.requestOn(workerIndex, op.id, body, decode, op.lane, frames, op.name).then(
      (reply) => {
        release(frames);
        return reply;
      },
      (error: unknown) => {
        // The worker answered (an error reply), or the command never reached it: nothing reads
        // the frames for it any more. A worker that is gone may have been reading them when it
        // stopped: its holds stay, and the frames go to the collector instead of another request.
        if (!(error instanceof PartitionWorkerUnavailableError)) release(frames);
        throw error;
      },
    );
  }

  /**
   * Posts declared op `op` on its lane (no reply, no wake-up; see `post`). A posted command is
   * never answered, so it may not name shared frames: nothing would ever release them.
   */
  postOp<Req>(workerIndex: number, op: WorkerOp<Req, void>, request: Req): void {
    const body = op.request.encode(request);
    if (body.sharedFrames !== undefined) {
      release(body.sharedFrames);
      throw new RangeError(`posted op ${op.name} names shared frames: call it instead`);
    }
    this.postOn(workerIndex, op.id, body, op.lane, op.name);
  }

  /**
   * Sends `op` without waiting for an answer or waking the worker (see `RingChannelClient.post`).
   * To a worker that is gone it does nothing: whatever the command was for went with it. It does
   * not start a worker: the command waits in the ring for the worker's first request.
   */
  post(workerIndex: number, op: number, body: MessageBody): void {
    this.postOn(workerIndex, op, body, 'ordered');
  }

  private requestOn<T>(
    workerIndex: number,
    op: number,
    body: MessageBody,
    decode: ReplyDecoder<T>,
    lane: CommandLane,
    sharedFrames?: readonly SharedFrameHold[],
    name?: string,
  ): Promise<T> {
    const slot = this.slot(workerIndex);
    if (slot.failure !== null) return Promise.reject(slot.failure);
    if (!isHandlerOp(op)) return Promise.reject(new RangeError(`op ${op} is not a handler op (0..0xfeff)`));
    this.countOf(op, name).requests++;
    // The request waits in the ring while the thread starts; a failure to start reaches it
    // (and onWorkerLost) through lose(), so the start's own rejection has nothing left to tell.
    if (slot.thread === null) this.launch(slot).catch(() => undefined);
    // On the port before the command is in the ring (see shared-frames.ts).
    if (sharedFrames !== undefined) slot.frames!.share(sharedFrames);
    return slot.channel.requestDecoded(op, body, decode, lane);
  }

  private postOn(workerIndex: number, op: number, body: MessageBody, lane: CommandLane, name?: string): void {
    const slot = this.slot(workerIndex);
    if (slot.failure !== null) return;
    if (!isHandlerOp(op)) throw new RangeError(`op ${op} is not a handler op (0..0xfeff)`);
    this.countOf(op, name).posts++;
    slot.channel.post(op, body, lane);
  }

  private countOf(op: number, name: string | undefined): OpCount {
    let count = this.sent.get(op);
    if (count === undefined) this.sent.set(op, (count = { name: name ?? String(op), requests: 0, posts: 0 }));
    else if (name !== undefined && count.name !== name) count.name = name;
    return count;
  }

  /**
   * The commands sent to the workers since start (all workers together), by op and kind:
   * `request` waits for a reply (a round trip), `post` does not. A declared op is named by its
   * name, a raw one by its number. Commands refused before reaching a ring are not counted.
   */
  commandCounts(): WorkerCommandCount[] {
    const out: WorkerCommandCount[] = [];
    for (const c of this.sent.values()) {
      if (c.requests > 0) out.push({ op: c.name, kind: 'request', count: c.requests });
      if (c.posts > 0) out.push({ op: c.name, kind: 'post', count: c.posts });
    }
    return out;
  }

  /** Bytes in use and capacity of every worker's command lanes and reply ring, for /metrics. */
  ringOccupancy(): RingOccupancy[] {
    return this.slots.flatMap((slot) => [
      ringOccupancy(slot.index, 'commands', slot.buffers.commands),
      ringOccupancy(slot.index, 'priority', slot.buffers.priority),
      ringOccupancy(slot.index, 'replies', slot.buffers.replies),
    ]);
  }

  /** `request` to the worker that owns `partition` of `topicKey`. */
  requestFor(topicKey: string, partition: number, op: number, body?: MessageBody): Promise<Uint8Array> {
    return this.request(this.workerFor(topicKey, partition), op, body);
  }

  /**
   * Clean shutdown: new requests fail at once; each started worker answers its in-flight
   * commands, runs its close hooks and exits (one never started has nothing to close, and is
   * not started any more). A worker that takes longer than `shutdownTimeoutMs` is terminated.
   * Rejects with the first close-hook error, after every worker has stopped.
   */
  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  private async shutDown(): Promise<void> {
    const live = this.slots.filter((slot): slot is StartedSlot => slot.failure === null && slot.thread !== null);
    const replies = live.map((slot) => slot.channel.requestShutdown());
    for (const slot of this.slots) slot.failure ??= new PartitionWorkerUnavailableError(slot.index, 'closed', 'the host is shutting down');
    const outcomes = await Promise.allSettled(live.map((slot, i) => this.awaitExit(slot, replies[i]!)));
    for (const slot of this.slots) slot.channel.fail(slot.failure!);
    const failed = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
  }

  private async awaitExit(slot: StartedSlot, shutdownReply: Promise<void>): Promise<void> {
    const timeoutMs = this.options.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timed-out'>((resolve) => (timer = setTimeout(() => resolve('timed-out'), timeoutMs)));
    try {
      const outcome = await Promise.race([shutdownReply.then(() => slot.exited), timedOut]);
      if (outcome === 'timed-out') {
        await slot.thread.terminate();
        throw new PartitionWorkerUnavailableError(slot.index, 'closed', `did not shut down within ${timeoutMs} ms and was terminated`);
      }
    } finally {
      clearTimeout(timer);
    }
  }

  private lose(slot: WorkerSlot, reason: WorkerUnavailableReason, detail: string, cause: unknown): void {
    const error = new PartitionWorkerUnavailableError(slot.index, reason, detail, { cause });
    // Replies the worker wrote before it stopped are still delivered; the rest reject with this
    // (during close() that includes the shutdown reply of a worker that died instead).
    slot.channel.fail(error);
    if (slot.failure !== null) return;
    slot.failure = error;
    this.options.onWorkerLost?.(error);
    this.lostHook?.(slot.index);
  }

  private slot(workerIndex: number): WorkerSlot {
    const slot = this.slots[workerIndex];
    if (slot === undefined) throw new RangeError(`no partition worker ${workerIndex} (there are ${this.slots.length})`);
    return slot;
  }
}

function release(frames: readonly SharedFrameHold[]): void {
  for (const hold of frames) hold.release();
}

/**
 * Reads a ring's HEAD and TAIL (layout: `ipc/ring-layout.ts`). Each is written by one side only;
 * the two loads are not one snapshot, so the figure may be a frame off, which a gauge tolerates.
 */
function ringOccupancy(worker: number, direction: RingOccupancy['direction'], buffer: SharedArrayBuffer): RingOccupancy {
  const cells = new Int32Array(buffer, 0, HEADER_BYTES / 4);
  const capacityBytes = buffer.byteLength - HEADER_BYTES;
  // Positions run over two laps (see ring-layout.ts): tail - head modulo 2 × capacity.
  const used = Atomics.load(cells, TAIL_INDEX) - Atomics.load(cells, HEAD_INDEX);
  return { worker, direction, usedBytes: used < 0 ? used + 2 * capacityBytes : used, capacityBytes };
}
