/**
 * A request/reply channel between the main thread and one worker over two SPSC rings: commands
 * flow main → worker, replies worker → main, matched by correlation id (replies may come back in
 * any order). The client (`ring-channel-client.ts`) lives on the main thread, the server
 * (`ring-channel-server.ts`) in the worker. This module holds what both sides share.
 */
import { createRingBuffer } from './spsc-ring.js';

/** The two SharedArrayBuffers of one channel; structured-clonable into a worker. */
export interface ChannelBuffers {
  readonly commands: SharedArrayBuffer;
  readonly replies: SharedArrayBuffer;
}

/** 8 MiB per direction: room for several 1 MiB produce batches (`message.max.bytes`) in flight. */
export const DEFAULT_RING_CAPACITY = 8 * 1024 * 1024;

export function createChannelBuffers(commandCapacity = DEFAULT_RING_CAPACITY, replyCapacity = commandCapacity): ChannelBuffers {
  return { commands: createRingBuffer(commandCapacity), replies: createRingBuffer(replyCapacity) };
}

export { RingChannelClient, copyReply, type ReplyDecoder } from './ring-channel-client.js';
export { RingChannelServer, type Command, type CommandHandler, type ReplyBody } from './ring-channel-server.js';
export { EMPTY_BODY, type BodyHeader, type MessageBody } from './message-body.js';
