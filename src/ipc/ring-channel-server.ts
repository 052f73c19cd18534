/**
 * Worker end of a ring channel: reads commands, dispatches them by op to a handler table, and
 * writes each reply (possibly out of order: a handler may return a promise, e.g. a parked
 * long-poll fetch) to the reply ring. Owned by one worker thread.
 *
 * Before each command of the ordered lane it serves what waits on the priority lane (up to
 * PRIORITY_PER_COMMAND, so that a stream of priority commands cannot starve the ordered lane):
 * a short command never waits behind more than one ordered command. The shutdown command comes
 * on the ordered lane, after every priority command the client sent before it.
 *
 * The loop blocks in `Atomics.wait` on the lanes' doorbell (allowed in workers) with a timeout
 * bounded by `waitBudgetMs()`, so timers the worker schedules (retention, flush ticks) still run
 * on time: after each wait it yields one turn of the event loop. While a handler's promise is
 * pending it waits with `Atomics.waitAsync` instead, so the event loop can settle that promise.
 */
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import {
  COMMAND_HEADER_BYTES,
  COMMAND_NO_REPLY,
  REPLY_ERROR,
  REPLY_OK,
  SHUTDOWN_OP,
  encodeErrorBody,
  readCommandHeader,
  writeCommandHeader,
} from './command-codec.js';
import { RingMessageTooLargeError } from './errors.js';
import { Doorbell } from './doorbell.js';
import { EMPTY_BODY, bodyLength, type MessageBody } from './message-body.js';
import type { ChannelBuffers } from './ring-channel.js';
import { SpscRingReader, SpscRingWriter } from './spsc-ring.js';

/** One command as a handler sees it. */
export interface Command {
  readonly id: number;
  readonly op: number;
  /**
   * The body, a view over ring memory (no copy): valid only during the synchronous part of the
   * handler call. Write it to a file or decode it right away; copy what must outlive the call.
   */
  readonly body: Uint8Array;
}

/** What a handler answers: bytes, a header + payloads written in place, or nothing. */
export type ReplyBody = MessageBody | Uint8Array | void;

/** Throw a `KafkaError` to answer with its code; any other exception answers UNKNOWN_SERVER_ERROR. */
export type CommandHandler = (command: Command) => ReplyBody | Promise<ReplyBody>;

interface Answerer {
  ok(id: number, op: number, reply: ReplyBody): void;
  error(id: number, op: number, error: unknown): void;
}

export interface RingChannelServerOptions {
  readonly handlers: ReadonlyMap<number, CommandHandler>;
  /** Longest a blocking wait may last now (e.g. time to the next timer); called before each wait. */
  readonly waitBudgetMs: () => number;
  /** Runs after the shutdown command, once every in-flight handler has replied. */
  readonly onShutdown: () => Promise<void>;
  /** A posted command (no reply expected) failed: nobody else will hear of it. */
  readonly onPostFailure: (op: number, error: unknown) => void;
}

/** Commands handled before yielding to the event loop when the ring never empties. */
const COMMANDS_PER_TURN = 1024;
/** Most priority commands served before the next ordered one, while the priority lane never empties. */
const PRIORITY_PER_COMMAND = 64;
/** Longest the event loop goes without a turn while commands keep coming. */
const YIELD_INTERVAL_MS = 2;
/** How long a reply waits for ring space per attempt before re-checking (the main thread drains). */
const REPLY_SPACE_WAIT_MS = 1000;

export class RingChannelServer {
  private readonly commands: SpscRingReader;
  private readonly priority: SpscRingReader;
  private readonly doorbell: Doorbell;
  private readonly replies: SpscRingWriter;
  private readonly options: RingChannelServerOptions;
  private inFlight = 0;
  /** Called when an asynchronous handler settles, to end the loop's asynchronous wait. */
  private wakeLoop: (() => void) | null = null;

  constructor(buffers: ChannelBuffers, options: RingChannelServerOptions) {
    this.commands = new SpscRingReader(buffers.commands);
    this.priority = new SpscRingReader(buffers.priority);
    this.doorbell = new Doorbell(buffers.doorbell);
    this.replies = new SpscRingWriter(buffers.replies);
    this.options = options;
  }

  /** Serves commands until the shutdown command; resolves once it has been answered. */
  async run(): Promise<void> {
    let shutdownId = -1;
    let lastYield = performance.now();
    while (shutdownId < 0) {
      let handled = 0;
      while (handled < COMMANDS_PER_TURN) {
        handled += this.servePriority();
        const length = this.commands.next();
        if (length < 0) break;
        const { id, op, status } = readCommandHeader(this.commands.view, this.commands.payloadOffset, length);
        if (op === SHUTDOWN_OP) {
          // The client wrote every earlier priority command before this one: all are visible now.
          while (this.servePriority() > 0) continue;
          shutdownId = id;
          break;
        }
        this.dispatch(this.commands, id, op, length, status === COMMAND_NO_REPLY);
        handled++;
      }
      this.commands.release();
      if (shutdownId >= 0) break;
      // A command that just woke us is served before the event loop gets a turn (latency), but
      // timers and I/O callbacks still get one at least every YIELD_INTERVAL_MS, and whenever a
      // wait ends without a command (a timer may be due).
      const busy = handled >= COMMANDS_PER_TURN || performance.now() - lastYield >= YIELD_INTERVAL_MS;
      if (busy || !(await this.waitForCommands())) {
        await yieldToEventLoop();
        lastYield = performance.now();
      }
    }
    while (this.inFlight > 0) await new Promise<void>((resolve) => (this.wakeLoop = resolve));
    this.wakeLoop = null;
    try {
      await this.options.onShutdown();
    } catch (error) {
      this.replyError(shutdownId, SHUTDOWN_OP, error);
      return;
    }
    this.reply(shutdownId, SHUTDOWN_OP, undefined);
  }

  /** Serves up to PRIORITY_PER_COMMAND commands of the priority lane and releases them; returns how many. */
  private servePriority(): number {
    let handled = 0;
    while (handled < PRIORITY_PER_COMMAND) {
      const length = this.priority.next();
      if (length < 0) break;
      const { id, op, status } = readCommandHeader(this.priority.view, this.priority.payloadOffset, length);
      this.dispatch(this.priority, id, op, length, status === COMMAND_NO_REPLY);
      handled++;
    }
    this.priority.release();
    return handled;
  }

  /** Returns true if woken by a command; false on timeout, or when a handler settled. */
  private async waitForCommands(): Promise<boolean> {
    const budget = Math.max(0, this.options.waitBudgetMs());
    const hasWork = (): boolean => this.priority.hasData() || this.commands.hasData();
    if (this.inFlight === 0) return this.doorbell.waitForRing(hasWork, budget);
    const data = this.doorbell.waitForRingAsync(hasWork, budget);
    this.wakeLoop = () => this.doorbell.interrupt();
    await data;
    this.wakeLoop = null;
    return false;
  }

  private dispatch(lane: SpscRingReader, id: number, op: number, length: number, posted: boolean): void {
    const answer = posted ? this.postedAnswerer : this.answerer;
    const handler = this.options.handlers.get(op);
    if (handler === undefined) {
      answer.error(id, op, new KafkaError(ErrorCode.UNKNOWN_SERVER_ERROR, `no handler for op ${op}`));
      return;
    }
    const start = lane.payloadOffset + COMMAND_HEADER_BYTES;
    const body = lane.bytes.subarray(start, lane.payloadOffset + length);
    let result: ReplyBody | Promise<ReplyBody>;
    try {
      result = handler({ id, op, body });
    } catch (error) {
      answer.error(id, op, error);
      return;
    }
    if (!(result instanceof Promise)) {
      answer.ok(id, op, result);
      return;
    }
    this.inFlight++;
    result.then(
      (reply) => this.settle(() => answer.ok(id, op, reply)),
      (error: unknown) => this.settle(() => answer.error(id, op, error)),
    );
  }

  /** How a command's outcome is answered: with a reply, or (posted commands) not at all. */
  private readonly answerer: Answerer = {
    ok: (id, op, reply) => this.reply(id, op, reply),
    error: (id, op, error) => this.replyError(id, op, error),
  };

  private readonly postedAnswerer: Answerer = {
    ok: () => undefined,
    error: (_id, op, error) => this.options.onPostFailure(op, error),
  };

  private settle(sendReply: () => void): void {
    this.inFlight--;
    sendReply();
    this.wakeLoop?.();
  }

  private reply(id: number, op: number, reply: ReplyBody): void {
    const body: MessageBody = reply === undefined ? EMPTY_BODY : reply instanceof Uint8Array ? { payloads: [reply] } : reply;
    const length = COMMAND_HEADER_BYTES + bodyLength(body);
    if (length > this.replies.maxPayloadBytes) {
      this.replyError(id, op, new RingMessageTooLargeError(length, this.replies.maxPayloadBytes));
      return;
    }
    this.send(id, op, REPLY_OK, body);
  }

  private replyError(id: number, op: number, error: unknown): void {
    const code = error instanceof KafkaError ? error.code : ErrorCode.UNKNOWN_SERVER_ERROR;
    const message = error instanceof Error ? error.message : String(error);
    this.send(id, op, REPLY_ERROR, { payloads: [encodeErrorBody(code, message)] });
  }

  private send(id: number, op: number, status: number, body: MessageBody): void {
    const header = body.header;
    const headerBytes = COMMAND_HEADER_BYTES + (header?.byteLength ?? 0);
    const payloads = body.payloads ?? [];
    const writeHeader = (target: DataView, offset: number): void => {
      writeCommandHeader(target, offset, id, op, status);
      header?.write(target, offset + COMMAND_HEADER_BYTES);
    };
    // Blocking is allowed here (a worker) and safe: the main thread drains replies independently
    // of everything else it does, so space always comes back.
    while (!this.replies.tryWrite(headerBytes, writeHeader, payloads)) {
      this.replies.waitForSpace(COMMAND_HEADER_BYTES + bodyLength(body), REPLY_SPACE_WAIT_MS);
    }
  }
}

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
