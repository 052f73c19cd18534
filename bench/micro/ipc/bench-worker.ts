/**
 * The far side of the ring benchmark: drains a ring (or a message port) and reports how many
 * messages and bytes it saw, or echoes messages back for round trips. Worker thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { SpscRingReader } from '../../../src/ipc/spsc-ring.js';

export type BenchWorkerData =
  | { readonly mode: 'ring-sink'; readonly ring: SharedArrayBuffer; readonly messages: number }
  | { readonly mode: 'port-sink'; readonly messages: number }
  | { readonly mode: 'port-echo' };

export interface SinkReport {
  readonly messages: number;
  readonly bytes: number;
  /** XOR of each message's first byte: proves the payloads were looked at. */
  readonly check: number;
}

/** Release consumed frames to the producer at least this often while the ring is busy. */
const RELEASE_EVERY_MESSAGES = 64;
const RELEASE_EVERY_BYTES = 256 * 1024;

const port = parentPort!;
const data = workerData as BenchWorkerData;

if (data.mode === 'ring-sink') {
  const reader = new SpscRingReader(data.ring);
  let messages = 0;
  let bytes = 0;
  let check = 0;
  let sinceRelease = 0;
  let bytesSinceRelease = 0;
  while (messages < data.messages) {
    const length = reader.next();
    if (length < 0) {
      reader.waitForData(1000);
      sinceRelease = 0;
      bytesSinceRelease = 0;
      continue;
    }
    messages++;
    bytes += length;
    check ^= length > 0 ? reader.bytes[reader.payloadOffset]! : 0;
    bytesSinceRelease += length;
    if (++sinceRelease === RELEASE_EVERY_MESSAGES || bytesSinceRelease >= RELEASE_EVERY_BYTES) {
      reader.release();
      sinceRelease = 0;
      bytesSinceRelease = 0;
    }
  }
  reader.release();
  port.postMessage({ messages, bytes, check } satisfies SinkReport);
} else if (data.mode === 'port-sink') {
  let messages = 0;
  let bytes = 0;
  let check = 0;
  port.on('message', (message: Uint8Array) => {
    messages++;
    bytes += message.byteLength;
    check ^= message.byteLength > 0 ? message[0]! : 0;
    if (messages === data.messages) {
      port.postMessage({ messages, bytes, check } satisfies SinkReport);
      port.close();
    }
  });
} else {
  port.on('message', (message: Uint8Array | 'stop') => {
    if (message === 'stop') port.close();
    else port.postMessage(message);
  });
}
