/**
 * Writes a connection's response frames to its socket strictly in order. In-memory parts go
 * straight to the socket; a file range (Fetch records) is sent with sendfile — on this thread
 * while the socket takes it, from the thread pool once it is full — and everything after it
 * waits until the kernel has taken those bytes, so no two sends interleave. Every file
 * range is released exactly once, sent or not, so the owner's lease on the segment ends.
 */
import type { Socket } from 'node:net';
import type { BrokerMetrics } from '../common/metrics/broker-metrics.js';
import { sendFile, sendFileNow } from '../native/index.js';
import type { FileRegion, FrameParts } from '../protocol/primitives/writer.js';

export class OutboundQueue {
  private readonly queue: Array<Buffer | FileRegion> = [];
  private sending = false;
  private failed = false;

  constructor(
    private readonly socket: Socket,
    /** Counts the bytes sent, by path (zero copy or buffered). */
    private readonly metrics: BrokerMetrics,
    private readonly onSendError: (err: unknown) => void,
    /** Called whenever everything queued has been handed to the socket. */
    private readonly onIdle: () => void,
  ) {}

  /** Nothing queued and no file send in progress. */
  get idle(): boolean {
    return this.queue.length === 0 && !this.sending;
  }

  enqueue(frame: FrameParts): void {
    if (this.failed) {
      releaseAll(frame);
      return;
    }
    for (const part of frame) this.queue.push(part);
    if (!this.sending) this.drain();
  }

  private drain(): void {
    while (this.queue.length > 0 && !this.failed) {
      const part = this.queue.shift()!;
      if (Buffer.isBuffer(part)) {
        this.socket.write(part);
        this.metrics.bufferedBytesSent(part.length);
        continue;
      }
      let sent: number;
      try {
        sent = sendFileNow(this.socket, part.fd, part.position, part.byteLength);
      } catch (err) {
        part.release();
        this.fail(err);
        return;
      }
      if (sent === part.byteLength) {
        part.release();
        this.metrics.zeroCopyBytesSent(part.byteLength);
        continue;
      }
      // The socket's buffer filled up: the rest goes from the thread pool, which waits for room.
      this.sending = true;
      sendFile(this.socket, part.fd, part.position + sent, part.byteLength - sent).then(
        () => {
          part.release();
          this.metrics.zeroCopyBytesSent(part.byteLength);
          this.sending = false;
          this.drain();
        },
        (err: unknown) => {
          part.release();
          this.sending = false;
          this.fail(err);
        },
      );
      return;
    }
    if (this.idle) this.onIdle();
  }

  /** Stops sending and releases every file range still queued (the connection is going away). */
  fail(err?: unknown): void {
    if (this.failed) return;
    this.failed = true;
    releaseAll(this.queue.splice(0));
    if (err !== undefined) this.onSendError(err);
  }
}

function releaseAll(parts: FrameParts): void {
  for (const p of parts) if (!Buffer.isBuffer(p)) p.release();
}
