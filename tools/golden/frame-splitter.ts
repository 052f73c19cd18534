// Cuts a Kafka TCP byte stream into frames: each frame is a 4-byte big-endian size followed by
// that many bytes. Emits the frame bodies without the size prefix.
export class FrameSizeError extends Error {
  override name = 'FrameSizeError';
}

/** Capture traffic is small; anything bigger means the stream is not Kafka or the split went wrong. */
const MAX_FRAME_BYTES = 64 * 1024 * 1024;

export class FrameSplitter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;

  constructor(private readonly onFrame: (frame: Buffer) => void) {}

  push(chunk: Buffer): void {
    this.pending.push(chunk);
    this.pendingBytes += chunk.length;
    for (;;) {
      if (this.pendingBytes < 4) return;
      const buffered = this.pending.length === 1 ? this.pending[0]! : Buffer.concat(this.pending, this.pendingBytes);
      const size = buffered.readInt32BE(0);
      if (size < 0 || size > MAX_FRAME_BYTES) throw new FrameSizeError(`frame size ${size} out of range`);
      if (buffered.length < 4 + size) {
        this.pending = [buffered];
        return;
      }
      const frame = Buffer.from(buffered.subarray(4, 4 + size));
      const rest = buffered.subarray(4 + size);
      this.pending = rest.length > 0 ? [rest] : [];
      this.pendingBytes = rest.length;
      this.onFrame(frame);
    }
  }
}
