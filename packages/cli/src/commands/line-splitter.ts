/**
 * Splits a byte stream into lines on `\n` without decoding it, so a record's bytes reach the
 * broker exactly as they were in the input (kafka-console-producer decodes and re-encodes text).
 * A `\r` before the `\n` is dropped, as Java's `readLine` does for CRLF input.
 */
const LF = 0x0a;
const CR = 0x0d;

export class LineSplitter {
  private partial: Buffer[] = [];

  /** The lines completed by this chunk. */
  push(chunk: Buffer): Buffer[] {
    const lines: Buffer[] = [];
    let start = 0;
    for (let nl = chunk.indexOf(LF); nl !== -1; nl = chunk.indexOf(LF, start)) {
      const piece = chunk.subarray(start, nl);
      lines.push(withoutCr(this.partial.length === 0 ? piece : Buffer.concat([...this.partial, piece])));
      this.partial = [];
      start = nl + 1;
    }
    if (start < chunk.length) this.partial.push(chunk.subarray(start));
    return lines;
  }

  /** The last line when the input does not end with a newline. */
  end(): Buffer | null {
    if (this.partial.length === 0) return null;
    const last = Buffer.concat(this.partial);
    this.partial = [];
    return last;
  }
}

function withoutCr(line: Buffer): Buffer {
  return line.length > 0 && line[line.length - 1] === CR ? line.subarray(0, line.length - 1) : line;
}
