/**
 * The frame every main ↔ worker message starts with, inside a ring message:
 *
 * ```
 * byte 0  u32 LE  correlation id   chosen by the main thread, echoed by the reply
 * byte 4  u16 LE  op               what to do; ops ≥ FIRST_CONTROL_OP belong to the transport
 * byte 6  u16 LE  status           commands: COMMAND_EXPECTS_REPLY or COMMAND_NO_REPLY;
 *                                   replies: REPLY_OK or REPLY_ERROR
 * byte 8  body                     op-specific; for REPLY_ERROR: [i16 LE Kafka code][UTF-8 message]
 * ```
 *
 * The transport knows nothing else about bodies: op modules define them per op.
 */
import { CommandFrameError } from './errors.js';

export const COMMAND_HEADER_BYTES = 8;
const ID_OFFSET = 0;
const OP_OFFSET = 4;
const STATUS_OFFSET = 6;

export const COMMAND_EXPECTS_REPLY = 0;
/** A posted command: the worker runs it and sends nothing back (a failure is only logged there). */
export const COMMAND_NO_REPLY = 1;

export const REPLY_OK = 0;
export const REPLY_ERROR = 1;

/** Ops from here to 0xffff are reserved for the transport; op modules use 0..0xfeff. */
export const FIRST_CONTROL_OP = 0xff00;
/** Finish in-flight work, run close hooks, reply, exit. */
export const SHUTDOWN_OP = 0xffff;
export const MAX_OP = 0xffff;

export interface CommandHeader {
  readonly id: number;
  readonly op: number;
  readonly status: number;
}

export function writeCommandHeader(target: DataView, offset: number, id: number, op: number, status: number): void {
  target.setUint32(offset + ID_OFFSET, id, true);
  target.setUint16(offset + OP_OFFSET, op, true);
  target.setUint16(offset + STATUS_OFFSET, status, true);
}

export function readCommandHeader(source: DataView, offset: number, messageLength: number): CommandHeader {
  if (messageLength < COMMAND_HEADER_BYTES)
    throw new CommandFrameError(`message of ${messageLength} bytes is shorter than a command header`);
  return {
    id: source.getUint32(offset + ID_OFFSET, true),
    op: source.getUint16(offset + OP_OFFSET, true),
    status: source.getUint16(offset + STATUS_OFFSET, true),
  };
}

export function isHandlerOp(op: number): boolean {
  return Number.isInteger(op) && op >= 0 && op < FIRST_CONTROL_OP;
}

const ERROR_CODE_BYTES = 2;
const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

export function encodeErrorBody(code: number, message: string): Uint8Array {
  const text = utf8.encode(message);
  const body = new Uint8Array(ERROR_CODE_BYTES + text.byteLength);
  new DataView(body.buffer).setInt16(0, code, true);
  body.set(text, ERROR_CODE_BYTES);
  return body;
}

export function decodeErrorBody(body: Uint8Array): { code: number; message: string } {
  if (body.byteLength < ERROR_CODE_BYTES) throw new CommandFrameError(`error reply body of ${body.byteLength} bytes has no code`);
  const code = new DataView(body.buffer, body.byteOffset, body.byteLength).getInt16(0, true);
  return { code, message: fromUtf8.decode(body.subarray(ERROR_CODE_BYTES)) };
}
