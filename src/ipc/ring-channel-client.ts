/**
 * Main-thread end of a ring channel: sends commands, matches replies by correlation id.
 * Never blocks: a full command ring queues requests in order and waits with `Atomics.waitAsync`;
 * replies are drained by a pump that waits the same way. Owned by the main thread.
 *
 * Commands go on the lane the caller names (`ring-channel.ts`), each lane FIFO by itself.
 *
 * Life cycle: created on a channel's buffers shared with a worker; `fail(error)` (peer gone, or
 * after a clean shutdown) rejects every pending and later request with that error.
 */
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import {
  COMMAND_EXPECTS_REPLY,
  COMMAND_HEADER_BYTES,
  COMMAND_NO_REPLY,
  MAX_OP,
  REPLY_ERROR,
  SHUTDOWN_OP,
  decodeErrorBody,
  readCommandHeader,
  writeCommandHeader,
} from './command-codec.js';
import { Doorbell } from './doorbell.js';
import { CommandFrameError, RingMessageTooLargeError } from './errors.js';
import { EMPTY_BODY, bodyLength, type MessageBody } from './message-body.js';
import type { ChannelBuffers, CommandLane } from './ring-channel.js';
import { SpscRingReader, SpscRingWriter, type HeaderWriter } from './spsc-ring.js';

/**
 * Turns a reply body into the caller's result while the body is still a view over ring memory
 * (valid only during the call): decoding in place saves copying every reply out of the ring.
 */
export type ReplyDecoder<T> = (body: Uint8Array) => T;

interface PendingReply {
  readonly resolve: (reply: unknown) => void;
  readonly reject: (error: Error) => void;
  readonly decode: ReplyDecoder<unknown>;
}

/** slice() copies out of the ring: the caller keeps the bytes after the ring slot is reused. */
export const copyReply: ReplyDecoder<Uint8Array> = (body) => body.slice();

interface QueuedCommand {
  readonly payloadLength: number;
  readonly headerBytes: number;
  readonly writeHeader: HeaderWriter;
  readonly payloads: readonly Uint8Array[];
  /** Posted commands do not wake a sleeping worker (see `post`). */
  readonly wake: boolean;
}

/**
 * One command lane: its ring, and the commands waiting for space in it, in request order
 * (later commands on the lane never overtake them).
 */
class LaneWriter {
  readonly ring: SpscRingWriter;
  private readonly backlog: QueuedCommand[] = [];
  private readonly isFailed: () => boolean;
  /** Resolved each time the backlog empties. */
  private drained: (() => void)[] = [];

  constructor(buffer: SharedArrayBuffer, doorbell: Doorbell, isFailed: () => boolean) {
    this.ring = new SpscRingWriter(buffer, { coalesceWakeups: true, doorbell });
    this.isFailed = isFailed;
  }

  send(command: QueuedCommand): void {
    if (this.backlog.length > 0 || !this.ring.tryWrite(command.headerBytes, command.writeHeader, command.payloads, command.wake)) {
      this.backlog.push(command);
      if (this.backlog.length === 1) void this.drainBacklog();
    }
  }

  /** Resolves once every command sent so far is in the ring (or the channel failed). */
  flushed(): Promise<void> {
    if (this.backlog.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.drained.push(resolve));
  }

  fail(): void {
    this.backlog.length = 0;
    this.ring.interrupt();
    this.settleDrained();
  }

  private async drainBacklog(): Promise<void> {
    while (this.backlog.length > 0 && !this.isFailed()) {
      const next = this.backlog[0]!;
      // A backlogged command always wakes: the worker may be asleep with the ring full of posts.
      if (this.ring.tryWrite(next.headerBytes, next.writeHeader, next.payloads)) {
        this.backlog.shift();
      } else {
        await this.ring.waitForSpaceAsync(next.payloadLength);
      }
    }
    this.settleDrained();
  }

  private settleDrained(): void {
    const waiting = this.drained;
    this.drained = [];
    for (const resolve of waiting) resolve();
  }
}

/** Correlation ids wrap at 2^32; an id is reused only after 4 billion requests. */
const ID_SPACE = 2 ** 32;

export class RingChannelClient {
  private readonly lanes: Readonly<Record<CommandLane, LaneWriter>>;
  private readonly replies: SpscRingReader;
  private readonly pending = new Map<number, PendingReply>();
  private nextId = 0;
  private failure: Error | null = null;

  constructor(buffers: ChannelBuffers) {
    const doorbell = new Doorbell(buffers.doorbell);
    const isFailed = (): boolean => this.failure !== null;
    this.lanes = {
      ordered: new LaneWriter(buffers.commands, doorbell, isFailed),
      priority: new LaneWriter(buffers.priority, doorbell, isFailed),
    };
    this.replies = new SpscRingReader(buffers.replies);
    void this.pumpReplies();
  }

  /** The largest body a request may carry (on either lane: their rings are alike). */
  get maxBodyBytes(): number {
    return this.lanes.ordered.ring.maxPayloadBytes - COMMAND_HEADER_BYTES;
  }

  /** Requests not yet answered (sent or waiting for ring space). */
  get pendingCount(): number {
    return this.pending.size;
  }

  /**
   * Sends `op` with `body` and resolves with the reply body (a copy, owned by the caller).
   * Rejects with the handler's `KafkaError` on an error reply, with `RingMessageTooLargeError`
   * if the body can never fit, and with the channel's failure once it has failed.
   */
  request(op: number, body: MessageBody = EMPTY_BODY, lane: CommandLane = 'ordered'): Promise<Uint8Array> {
    return this.requestDecoded(op, body, copyReply, lane);
  }

  /** `request`, resolving with `decode` applied to the reply body in place (no copy). */
  requestDecoded<T>(op: number, body: MessageBody, decode: ReplyDecoder<T>, lane: CommandLane = 'ordered'): Promise<T> {
    if (this.failure !== null) return Promise.reject(this.failure);
    const id = this.nextId;
    let command: QueuedCommand;
    try {
      command = this.command(op, body, id, COMMAND_EXPECTS_REPLY, true);
    } catch (err) {
      return Promise.reject(err);
    }
    this.nextId = (id + 1) % ID_SPACE;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (reply: unknown) => void, reject, decode });
      this.lanes[lane].send(command);
    });
  }

  /**
   * Sends the shutdown command once every priority command sent so far is in its ring: the
   * server takes the priority lane once more when it meets the shutdown, so none is left
   * unanswered. Send nothing after it.
   */
  async requestShutdown(): Promise<void> {
    await this.lanes.priority.flushed();
    await this.request(SHUTDOWN_OP);
  }

  /**
   * Sends `op` with `body` and expects no reply; the worker logs a failure. The command does not
   * wake a sleeping worker: it runs when the worker next wakes (another command, or its bounded
   * idle wait), which suits housekeeping such as releasing read leases. Throws like `request`
   * rejects; after the channel has failed it does nothing (the worker is gone).
   */
  post(op: number, body: MessageBody, lane: CommandLane = 'ordered'): void {
    if (this.failure !== null) return;
    this.lanes[lane].send(this.command(op, body, 0, COMMAND_NO_REPLY, false));
  }

  private command(op: number, body: MessageBody, id: number, status: number, wake: boolean): QueuedCommand {
    if (!Number.isInteger(op) || op < 0 || op > MAX_OP) throw new RangeError(`op ${op} is not a u16`);
    const header = body.header;
    const command: QueuedCommand = {
      payloadLength: COMMAND_HEADER_BYTES + bodyLength(body),
      headerBytes: COMMAND_HEADER_BYTES + (header?.byteLength ?? 0),
      writeHeader: (target, offset) => {
        writeCommandHeader(target, offset, id, op, status);
        header?.write(target, offset + COMMAND_HEADER_BYTES);
      },
      payloads: body.payloads ?? [],
      wake,
    };
    const limit = this.lanes.ordered.ring.maxPayloadBytes;
    if (command.payloadLength > limit) throw new RingMessageTooLargeError(command.payloadLength, limit);
    return command;
  }

  /**
   * Delivers the replies already in the ring, then rejects every other pending request and every
   * later one with `error`, and stops waiting on the rings. Called when the peer is gone.
   */
  fail(error: Error): void {
    if (this.failure !== null) return;
    this.drainReplies();
    this.failure = error;
    this.lanes.ordered.fail();
    this.lanes.priority.fail();
    for (const reply of this.pending.values()) reply.reject(error);
    this.pending.clear();
    this.replies.interrupt();
  }

  private async pumpReplies(): Promise<void> {
    while (this.failure === null) {
      this.drainReplies();
      await this.replies.waitForDataAsync();
    }
  }

  private drainReplies(): void {
    for (let length = this.replies.next(); length >= 0; length = this.replies.next()) this.deliver(length);
    this.replies.release();
  }

  private deliver(length: number): void {
    const offset = this.replies.payloadOffset;
    const { id, status } = readCommandHeader(this.replies.view, offset, length);
    const reply = this.pending.get(id);
    if (reply === undefined) throw new CommandFrameError(`reply for unknown correlation id ${id}`);
    this.pending.delete(id);
    const body = this.replies.bytes.subarray(offset + COMMAND_HEADER_BYTES, offset + length);
    if (status === REPLY_ERROR) {
      const { code, message } = decodeErrorBody(body);
      reply.reject(new KafkaError(code, message));
      return;
    }
    let result: unknown;
    try {
      result = reply.decode(body);
    } catch (err) {
      reply.reject(err instanceof Error ? err : new Error(String(err)));
      return;
    }
    reply.resolve(result);
  }
}
