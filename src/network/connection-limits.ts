/**
 * Kafka's `max.connections` and `max.connections.per.ip` (with `max.connections.per.ip.overrides`):
 * counts the open connections of every listener of a broker, overall and per client IP. A
 * connection over either limit is refused, and the caller closes it at once.
 */
export interface ConnectionLimitSettings {
  readonly maxConnections: number;
  readonly maxConnectionsPerIp: number;
  /** By IP address, as the client's address reads (IPv4 without the `::ffff:` prefix). */
  readonly maxConnectionsPerIpOverrides: ReadonlyMap<string, number>;
}

/** An IPv4 client of a dual-stack listener reads `::ffff:a.b.c.d`; limits name it `a.b.c.d`. */
export function normalizeIp(address: string | undefined): string {
  if (address === undefined) return '?';
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

export class ConnectionLimits {
  private total = 0;
  private readonly perIp = new Map<string, number>();

  constructor(private readonly settings: ConnectionLimitSettings) {}

  /** Counts a new connection from `ip`, or returns why it is refused (nothing counted then). */
  tryAcquire(ip: string): string | null {
    if (this.total >= this.settings.maxConnections) return `max.connections (${this.settings.maxConnections}) reached`;
    const limit = this.settings.maxConnectionsPerIpOverrides.get(ip) ?? this.settings.maxConnectionsPerIp;
    const open = this.perIp.get(ip) ?? 0;
    if (open >= limit) return `max.connections.per.ip (${limit}) reached for ${ip}`;
    this.total++;
    this.perIp.set(ip, open + 1);
    return null;
  }

  release(ip: string): void {
    this.total--;
    const open = (this.perIp.get(ip) ?? 1) - 1;
    if (open <= 0) this.perIp.delete(ip);
    else this.perIp.set(ip, open);
  }
}
