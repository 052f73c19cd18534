/**
 * A raw Kafka wire client for tests: sends hand-made frames over a real socket and reads
 * size-prefixed responses, so tests can send what no well-behaved client would.
 */
import { connect, type Socket } from 'node:net';
import { once } from 'node:events';

export class WireClient {
  private buffered = Buffer.alloc(0);
  private waiters: Array<() => void> = [];
  closed = false;

  private constructor(readonly socket: Socket) {
    socket.on('data', (d: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, d]);
      this.wake();
    });
    socket.on('close', () => {
      this.closed = true;
      this.wake();
    });
    socket.on('error', () => undefined);
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  static async connect(host: string, port: number): Promise<WireClient> {
    const socket = connect(port, host);
    await once(socket, 'connect');
    return new WireClient(socket);
  }

  send(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  /** The next response frame without its size prefix; rejects if the broker closes first. */
  async readFrame(timeoutMs = 5000): Promise<Buffer> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (this.buffered.length >= 4) {
        const size = this.buffered.readInt32BE(0);
        if (this.buffered.length >= 4 + size) {
          const frame = this.buffered.subarray(4, 4 + size);
          this.buffered = this.buffered.subarray(4 + size);
          return frame;
        }
      }
      if (this.closed) throw new Error('connection closed by the broker');
      const left = deadline - Date.now();
      if (left <= 0) throw new Error('timed out waiting for a response');
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  /** Resolves true when the broker closes the connection within the timeout. */
  async closedWithin(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (!this.closed && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    return this.closed;
  }

  close(): void {
    this.socket.destroy();
  }
}

/**
 * What a broker did with one request sent on a fresh connection: `answered` (with any response)
 * or `closed` (the connection, without answering); anything else is the error text.
 */
export async function requestFate(bootstrap: string, frame: Buffer, timeoutMs = 10_000): Promise<string> {
  const colon = bootstrap.lastIndexOf(':');
  const client = await WireClient.connect(bootstrap.slice(0, colon), Number(bootstrap.slice(colon + 1)));
  try {
    client.send(frame);
    return await client.readFrame(timeoutMs).then(
      () => 'answered',
      (err: unknown) => (client.closed ? 'closed' : String(err)),
    );
  } finally {
    client.close();
  }
}
