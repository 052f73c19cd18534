/**
 * A request/reply channel between the main thread and one worker over SPSC rings: commands flow
 * main → worker on two lanes, replies worker → main on one ring, matched by correlation id
 * (replies may come back in any order). The client (`ring-channel-client.ts`) lives on the main
 * thread, the server (`ring-channel-server.ts`) in the worker. This module holds what both sides
 * share.
 *
 * Lanes: each is its own command ring, FIFO within itself. The server takes the `priority`
 * lane's commands before each next command of the `ordered` lane, so a short command is not
 * queued behind megabytes of others; the two lanes are not ordered with each other, except
 * that a command sent after another's reply arrived runs after it, whatever their lanes. The
 * worker sleeps on one doorbell for both (`doorbell.ts`).
 */
import { createDoorbellBuffer } from './doorbell.js';
import { createRingBuffer } from './spsc-ring.js';

export type CommandLane = 'ordered' | 'priority';

/** The shared memory of one channel; structured-clonable into a worker. */
export interface ChannelBuffers {
  /** The `ordered` command lane. */
  readonly commands: SharedArrayBuffer;
  /** The `priority` command lane. */
  readonly priority: SharedArrayBuffer;
  readonly replies: SharedArrayBuffer;
  /** Rung by both command lanes' writer; the worker sleeps on it. */
  readonly doorbell: SharedArrayBuffer;
}

/** 8 MiB per direction: room for several 1 MiB produce batches (`message.max.bytes`) in flight. */
export const DEFAULT_RING_CAPACITY = 8 * 1024 * 1024;

/**
 * Both command lanes get `commandCapacity`, so that any command fits either lane (a caller
 * splits its messages by one limit); the priority lane's pages are touched only as it turns.
 */
export function createChannelBuffers(commandCapacity = DEFAULT_RING_CAPACITY, replyCapacity = commandCapacity): ChannelBuffers {
  return {
    commands: createRingBuffer(commandCapacity),
    priority: createRingBuffer(commandCapacity),
    replies: createRingBuffer(replyCapacity),
    doorbell: createDoorbellBuffer(),
  };
}

export { RingChannelClient, copyReply, type ReplyDecoder } from './ring-channel-client.js';
export { RingChannelServer, type Command, type CommandHandler, type ReplyBody } from './ring-channel-server.js';
export { EMPTY_BODY, type BodyHeader, type MessageBody } from './message-body.js';
