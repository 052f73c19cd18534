/**
 * Which local process opened a loopback TCP connection, from the kernel's tables (Linux
 * /proc): the proxy in front of a broker uses it to cut off only the connections a partitioned
 * peer made, so a network partition isolates a broker both ways while everything else still
 * reaches it.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** The socket inode of the IPv4 connection whose local port is `port` and remote port `peerPort`. */
function inodeOf(port: number, peerPort: number): string | undefined {
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length < 10) continue;
    const local = parseInt(f[1]!.split(':')[1]!, 16);
    const remote = parseInt(f[2]!.split(':')[1]!, 16);
    if (local === port && remote === peerPort) return f[9];
  }
  return undefined;
}

function holds(pid: number, inode: string): boolean {
  const wanted = `socket:[${inode}]`;
  try {
    return readdirSync(`/proc/${pid}/fd`).some((fd) => {
      try {
        return readlinkSync(`/proc/${pid}/fd/${fd}`) === wanted;
      } catch {
        return false; // closed while we looked
      }
    });
  } catch {
    return false; // the process is gone
  }
}

/**
 * Whether process `pid` owns the client end of the connection that reached `serverPort` from
 * `clientPort`. A connection whose entry is gone (closed meanwhile) belongs to no one.
 */
export function connectionFrom(pid: number, clientPort: number, serverPort: number): boolean {
  const inode = inodeOf(clientPort, serverPort);
  return inode !== undefined && inode !== '0' && holds(pid, inode);
}
