/**
 * Zero-copy transfer of a file range to a connected socket with sendfile(2) on the thread pool.
 * Ordering contract: bytes already written to the socket go out first (sendFile waits for them
 * to reach the kernel), and the file bytes go out before anything written after the call: the
 * socket is corked for the duration, so such writes are held back and follow the file. (If
 * earlier writes were still pending, writes made before they drain are not held; callers that
 * write nothing until the promise settles never meet that case.)
 */
import type { Socket } from 'node:net';
import { native } from './binding.js';

const sending = new WeakSet<Socket>();

export async function sendFile(socket: Socket, fd: number, position: number, length: number): Promise<void> {
  checkFileRange(fd, position, length);
  if (sending.has(socket)) throw new Error('sendFile: a send is already in progress on this socket');
  descriptorOf(socket);
  sending.add(socket);
  try {
    // With nothing pending there is no await before cork(), so the caller's next writes are
    // held back behind the file bytes.
    if (socket.writableLength > 0) await flushed(socket);
    if (length === 0) return;
    const socketFd = descriptorOf(socket);
    socket.cork();
    try {
      await transfer(socket, socketFd, fd, position, length);
    } finally {
      socket.uncork();
    }
  } finally {
    sending.delete(socket);
  }
}

/**
 * Sends as much of the range as the socket takes right now, on this thread, and returns the
 * bytes sent; `sendFile` then sends the rest. Sends nothing (returns 0) while bytes written
 * earlier are still queued in the socket or a `sendFile` is in progress, so the kernel always
 * gets the bytes in order. Throws the system error (e.g. EPIPE) when the socket has failed.
 */
export function sendFileNow(socket: Socket, fd: number, position: number, length: number): number {
  checkFileRange(fd, position, length);
  if (length === 0 || sending.has(socket) || socket.writableLength > 0) return 0;
  return native().sendFileNow(descriptorOf(socket), fd, position, length);
}

function transfer(socket: Socket, socketFd: number, fd: number, position: number, length: number): Promise<void> {
  return new Promise((resolve, reject) => {
    // A socket closed locally would otherwise leave the thread-pool worker waiting for a
    // reader that is gone; aborting shuts the connection down and the send fails with EPIPE.
    const onClose = (): void => abort();
    const abort = native().sendFile(socketFd, fd, position, length, (error) => {
      socket.off('close', onClose);
      if (error) reject(error);
      else resolve();
    });
    socket.once('close', onClose);
  });
}

/** Resolves once every byte written to the socket before now has reached the kernel. */
function flushed(socket: Socket): Promise<void> {
  return new Promise((resolve, reject) => {
    socket.write(Buffer.alloc(0), (error) => (error ? reject(error) : resolve()));
  });
}

function descriptorOf(socket: Socket): number {
  if (socket.destroyed || !socket.writable) throw new Error('sendFile: the socket is not writable');
  // net.Socket does not expose its descriptor publicly; libuv's TCP handle has it on Unix.
  const handle = (socket as unknown as { _handle?: { fd?: unknown } | null })._handle;
  const fd = handle?.fd;
  if (typeof fd !== 'number' || fd < 0) throw new TypeError('sendFile: the socket has no file descriptor (not a connected TCP socket?)');
  return fd;
}

function checkFileRange(fd: number, position: number, length: number): void {
  checkRange('fd', fd, 0x7fffffff);
  checkRange('position', position, Number.MAX_SAFE_INTEGER);
  checkRange('length', length, Number.MAX_SAFE_INTEGER);
}

function checkRange(name: string, value: number, max: number): void {
  if (!Number.isSafeInteger(value) || value < 0 || value > max) {
    throw new TypeError(`sendFile: ${name} must be an integer in [0, ${max}]`);
  }
}
