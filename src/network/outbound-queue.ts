/**
 * Writes a connection's response frames to its socket strictly in order. In-memory parts go
 * straight to the socket; a file range (Fetch records) is sent with sendfile — on this thread
 * while the socket takes it, from the thread pool once it is full — and everything after it
 * waits until the kernel has taken those bytes, so no two sends interleave. Every file
 * range is released exactly once, sent or not, so the owner's lease on the segment ends.
 *
 * On a TLS socket the bytes must pass through OpenSSL, so a file range is read into memory in
 * chunks (the fd stays leased until the range is released) and written through the socket,
 * waiting for 'drain' whenever it is full. Kernel TLS, which would let sendfile encrypt, is not
 * available here (no `tls` in /proc/sys/net/ipv4/tcp_available_ulp), so it is not tried.
 */
import { read } from 'node:fs';
import type { Socket } from 'node:net';
import { promisify } from 'node:util';
import type { BrokerMetrics } from '../common/metrics/broker-metrics.js';
import { sendFile, sendFileNow } from '../native/send-file.js';
import type { FileRegion, FrameParts } from '@sluice/protocol/primitives/writer.js';

const readAt = promisify(read);

/** Bytes of a file range read per write on a TLS socket (16 TLS records). */
const COPY_CHUNK_BYTES = 256 * 1024;

export class OutboundQueue {
  private readonly queue: Array<Buffer | FileRegion> = [];
  private sending = false;
  private failed = false;

  constructor(
    private readonly socket: Socket,
    /** False on a TLS socket: file ranges are copied through it rather than sent with sendfile. */
    private readonly zeroCopy: boolean,
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
      if (!this.zeroCopy) {
        this.sendInBackground(part, this.copyRange(part), (bytes) => this.metrics.bufferedBytesSent(bytes));
        return;
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
      this.sendInBackground(part, sendFile(this.socket, part.fd, part.position + sent, part.byteLength - sent), (bytes) =>
        this.metrics.zeroCopyBytesSent(bytes),
      );
      return;
    }
    if (this.idle) this.onIdle();
  }

  /** Holds everything queued behind `part` until `sending` settles; the range is released either way. */
  private sendInBackground(part: FileRegion, sending: Promise<void>, count: (bytes: number) => void): void {
    this.sending = true;
    sending.then(
      () => {
        part.release();
        count(part.byteLength);
        this.sending = false;
        this.drain();
      },
      (err: unknown) => {
        part.release();
        this.sending = false;
        this.fail(err);
      },
    );
  }

  /** Reads the range chunk by chunk and writes it, waiting for room; stops early once the queue failed. */
  private async copyRange(part: FileRegion): Promise<void> {
    let offset = 0;
    while (offset < part.byteLength && !this.failed && !this.socket.destroyed) {
      const chunk = Buffer.allocUnsafe(Math.min(COPY_CHUNK_BYTES, part.byteLength - offset));
      const { bytesRead } = await readAt(part.fd, chunk, 0, chunk.length, part.position + offset);
      if (bytesRead === 0) throw new Error(`file range ended ${part.byteLength - offset} bytes early`);
      offset += bytesRead;
      if (!this.socket.write(bytesRead === chunk.length ? chunk : chunk.subarray(0, bytesRead))) await this.writable();
    }
  }

  /** Resolves once the socket drained, or once it closed (the caller then finds the queue failed). */
  private writable(): Promise<void> {
    return new Promise((resolve) => {
      if (this.socket.destroyed) {
        resolve();
        return;
      }
      const done = (): void => {
        this.socket.off('drain', done);
        this.socket.off('close', done);
        resolve();
      };
      this.socket.on('drain', done);
      this.socket.on('close', done);
    });
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
