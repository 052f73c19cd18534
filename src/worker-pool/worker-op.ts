/**
 * A worker op declared once for both ends: its number on the ring, its name, and the codecs of
 * its request and reply. The main thread calls it (`PartitionWorkerHost.call`), the worker serves
 * it (`WorkerSetup.serve`), and both name the same declaration, so adding an op is one
 * declaration and one implementation, and either end can be followed to the other by name.
 *
 * The declaration also chooses the op's lane (`ipc/ring-channel.ts`). `ordered`, the default,
 * runs in order with every other ordered command. `priority` is for short ops that must not
 * queue behind appends (reads, offset look-ups): the worker serves them before its next ordered
 * command. A priority op may run before an ordered command sent earlier whose reply has not
 * arrived yet, never before one whose reply has — callers that need an ordered op's effect
 * await it first, as they must anyway to know it succeeded.
 *
 * A request decoded on the worker may hold views over ring memory (a produce batch is one): they
 * are valid only during the synchronous part of the implementation, which must copy what it keeps.
 */
import type { CommandLane, MessageBody } from '../ipc/ring-channel.js';
import type { SharedFrameHold } from '@sluice/protocol/frame-buffer-pool.js';

/**
 * A body whose bytes refer to pooled frames in shared memory (`shared-frames.ts`) besides what it
 * puts in the ring. Each hold is released once the worker has answered the command; the host
 * sends the worker the memories before the command.
 */
export interface RequestBody extends MessageBody {
  readonly sharedFrames?: readonly SharedFrameHold[];
}

export interface WorkerOp<Req, Rep> {
  readonly id: number;
  readonly name: string;
  readonly lane: CommandLane;
  readonly request: BodyCodec<Req>;
  /** Its `decode` is applied to the reply while it is still in the ring (no copy): keep nothing that points into it. */
  readonly reply: BodyCodec<Rep>;
}

export interface BodyCodec<T> {
  encode(value: T): RequestBody;
  decode(body: Uint8Array): T;
}

export function defineWorkerOp<Req, Rep>(
  id: number,
  name: string,
  request: BodyCodec<Req>,
  reply: BodyCodec<Rep>,
  lane: CommandLane = 'ordered',
): WorkerOp<Req, Rep> {
  return { id, name, lane, request, reply };
}

/** A body of one encoded part. */
export function binary<T>(encode: (value: T) => Uint8Array, decode: (body: Uint8Array) => T): BodyCodec<T> {
  return { encode: (value) => ({ payloads: [encode(value)] }), decode };
}

/** For the rare administrative ops, where readability beats compactness. */
export function json<T>(): BodyCodec<T> {
  return binary(
    (value) => Buffer.from(JSON.stringify(value)),
    (body) => JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8')) as T,
  );
}

/** An empty body: a command that needs no argument, or a reply that only says "done". */
export const NOTHING: BodyCodec<void> = { encode: () => ({}), decode: () => undefined };
