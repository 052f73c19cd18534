/**
 * Request frames in shared memory, named across threads: a produce batch that lies in a pooled
 * frame (`protocol/frame-buffer-pool.ts`) reaches its partition worker as (memory id, offset,
 * length) instead of a copy in the ring. Each worker is sent each memory once, on a MessagePort
 * of its own, before the first ring message that names it; the worker, meeting an id it does not
 * know, takes what waits on that port synchronously (`receiveMessageOnPort`). The post is queued
 * on the port before the ring write that publishes the command (an Atomics store), so the worker
 * finds it there. A worker started late is sent each memory when it first meets it, like any
 * other. Once the main thread has collected a memory (no frame, no hold, no pending command
 * refers to it), the worker is told to forget it, so that it does not keep the memory alive.
 *
 * `SharedFrameSender`: main thread, one per worker thread. `SharedFrameReceiver`: that worker.
 */
import { receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import type { SharedFrameHold } from '@sluice/protocol/frame-buffer-pool.js';

/** What the port carries: one memory and the id commands name it by, or (memory null) an id to forget. */
interface SharedFrameMessage {
  readonly id: number;
  readonly memory: SharedArrayBuffer | null;
}

/** A memory id no message on the port ever named: the sender and the command disagree (a bug). */
export class UnknownSharedFrameError extends Error {
  constructor(id: number) {
    super(`command names shared frame ${id}, which was never sent to this worker`);
    this.name = 'UnknownSharedFrameError';
  }
}

export class SharedFrameSender {
  readonly #port: MessagePort;
  /** Memories this worker has been sent (weakly: a memory the pool dropped is collected). */
  readonly #sent = new WeakSet<SharedArrayBuffer>();
  /** Collected here: the worker may forget it (nothing pending could name it, see the header). */
  readonly #collected = new FinalizationRegistry<number>((id) => this.#post({ id, memory: null }));
  #closed = false;

  constructor(port: MessagePort) {
    this.#port = port;
    // Nothing is ever received on this end: it must not keep the main thread alive.
    port.unref();
  }

  /** Sends the worker each memory it has not seen; call before the command naming them is written. */
  share(holds: readonly SharedFrameHold[]): void {
    for (const { id, memory } of holds) {
      if (this.#sent.has(memory)) continue;
      this.#post({ id, memory });
      this.#sent.add(memory);
      this.#collected.register(memory, id);
    }
  }

  /** The worker is gone. */
  close(): void {
    this.#closed = true;
    this.#port.close();
  }

  #post(message: SharedFrameMessage): void {
    if (!this.#closed) this.#port.postMessage(message);
  }
}

export class SharedFrameReceiver {
  readonly #port: MessagePort;
  readonly #memories = new Map<number, SharedArrayBuffer>();

  constructor(port: MessagePort) {
    this.#port = port;
    // Between commands, what the port brings (mostly ids to forget) is taken as it comes.
    port.on('message', (message: SharedFrameMessage) => this.#apply(message));
    port.unref();
  }

  /** The memory named `id`: known already, or waiting on the port. */
  memory(id: number): SharedArrayBuffer {
    let memory = this.#memories.get(id);
    while (memory === undefined) {
      const received = receiveMessageOnPort(this.#port);
      if (received === undefined) throw new UnknownSharedFrameError(id);
      this.#apply(received.message as SharedFrameMessage);
      memory = this.#memories.get(id);
    }
    return memory;
  }

  #apply({ id, memory }: SharedFrameMessage): void {
    if (memory === null) this.#memories.delete(id);
    else this.#memories.set(id, memory);
  }
}

/** This worker thread's receiver; null on the main thread, which never decodes a command. */
let receiver: SharedFrameReceiver | null = null;

/** Called once by the worker entry with the port its host sends memories on. */
export function receiveSharedFramesOn(port: MessagePort): void {
  receiver = new SharedFrameReceiver(port);
}

/** A view of `length` bytes at `offset` of shared frame `id`: valid until this command is answered. */
export function sharedFrameView(id: number, offset: number, length: number): Buffer {
  if (receiver === null) throw new UnknownSharedFrameError(id);
  const memory = receiver.memory(id);
  if (offset < 0 || length < 0 || offset + length > memory.byteLength) {
    throw new RangeError(`shared frame ${id} has ${memory.byteLength} bytes; a command names ${length} at ${offset}`);
  }
  return Buffer.from(memory, offset, length);
}
