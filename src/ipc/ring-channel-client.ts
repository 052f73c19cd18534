/**
 * Main-thread end of a ring channel: sends commands, matches replies by correlation id.
 * Never blocks: a full command ring queues requests in order and waits with `Atomics.waitAsync`;
 * replies are drained by a pump that waits the same way. Owned by the main thread.
 *
 * Life cycle: created on two ring buffers shared with a worker; `fail(error)` (peer gone, or
 * after a clean shutdown) rejects every pending and later request with that error.
 */
import { KafkaError } from '../common/kafka-error.js';
import {
  COMMAND_HEADER_BYTES,
  MAX_OP,
  REPLY_ERROR,
  decodeErrorBody,
  readCommandHeader,
  writeCommandHeader,
} from './command-codec.js';
import { CommandFrameError, RingMessageTooLargeError } from './errors.js';
import { EMPTY_BODY, bodyLength, type MessageBody } from './message-body.js';
import { SpscRingReader, SpscRingWriter, type HeaderWriter } from './spsc-ring.js';

interface PendingReply {
  readonly resolve: (reply: Uint8Array) => void;
  readonly reject: (error: Error) => void;
}

interface QueuedCommand {
  readonly payloadLength: number;
  readonly headerBytes: number;
  readonly writeHeader: HeaderWriter;
  readonly payloads: readonly Uint8Array[];
}

/** Correlation ids wrap at 2^32; an id is reused only after 4 billion requests. */
const ID_SPACE = 2 ** 32;

export class RingChannelClient {
  private readonly commands: SpscRingWriter;
  private readonly replies: SpscRingReader;
  private readonly pending = new Map<number, PendingReply>();
  /** Commands waiting for ring space, in request order: later requests never overtake them. */
  private readonly backlog: QueuedCommand[] = [];
  private nextId = 0;
  private failure: Error | null = null;

  constructor(commandRing: SharedArrayBuffer, replyRing: SharedArrayBuffer) {
    this.commands = new SpscRingWriter(commandRing, { coalesceWakeups: true });
    this.replies = new SpscRingReader(replyRing);
    void this.pumpReplies();
  }

  /** The largest body a request may carry. */
  get maxBodyBytes(): number {
    return this.commands.maxPayloadBytes - COMMAND_HEADER_BYTES;
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
  request(op: number, body: MessageBody = EMPTY_BODY): Promise<Uint8Array> {
    if (this.failure !== null) return Promise.reject(this.failure);
    if (!Number.isInteger(op) || op < 0 || op > MAX_OP) return Promise.reject(new RangeError(`op ${op} is not a u16`));
    const id = this.nextId;
    this.nextId = (this.nextId + 1) % ID_SPACE;
    const header = body.header;
    const command: QueuedCommand = {
      payloadLength: COMMAND_HEADER_BYTES + bodyLength(body),
      headerBytes: COMMAND_HEADER_BYTES + (header?.byteLength ?? 0),
      writeHeader: (target, offset) => {
        writeCommandHeader(target, offset, id, op, 0);
        header?.write(target, offset + COMMAND_HEADER_BYTES);
      },
      payloads: body.payloads ?? [],
    };
    if (command.payloadLength > this.commands.maxPayloadBytes) {
      return Promise.reject(new RingMessageTooLargeError(command.payloadLength, this.commands.maxPayloadBytes));
    }
    return new Promise<Uint8Array>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      if (this.backlog.length > 0 || !this.commands.tryWrite(command.headerBytes, command.writeHeader, command.payloads)) {
        this.backlog.push(command);
        if (this.backlog.length === 1) void this.drainBacklog();
      }
    });
  }

  /**
   * Delivers the replies already in the ring, then rejects every other pending request and every
   * later one with `error`, and stops waiting on the rings. Called when the peer is gone.
   */
  fail(error: Error): void {
    if (this.failure !== null) return;
    this.drainReplies();
    this.failure = error;
    this.backlog.length = 0;
    for (const reply of this.pending.values()) reply.reject(error);
    this.pending.clear();
    this.replies.interrupt();
    this.commands.interrupt();
  }

  private async drainBacklog(): Promise<void> {
    while (this.backlog.length > 0 && this.failure === null) {
      const next = this.backlog[0]!;
      if (this.commands.tryWrite(next.headerBytes, next.writeHeader, next.payloads)) {
        this.backlog.shift();
      } else {
        await this.commands.waitForSpaceAsync(next.payloadLength);
      }
    }
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
    // slice() copies out of the ring: the caller keeps the bytes after the ring slot is reused.
    const body = this.replies.bytes.slice(offset + COMMAND_HEADER_BYTES, offset + length);
    if (status === REPLY_ERROR) {
      const { code, message } = decodeErrorBody(body);
      reply.reject(new KafkaError(code, message));
    } else {
      reply.resolve(body);
    }
  }
}
