/**
 * The connection limits as the broker enforces them now: `max.connections`,
 * `max.connections.per.ip` and `max.connections.per.ip.overrides` are dynamic in Kafka, so each
 * read takes the dynamic broker config (this broker's, else the cluster default) over
 * server.properties. Before the metadata is loaded the static values apply.
 */
import type { ConfigResolver } from '../metadata/config/config-resolver.js';
import type { ConnectionLimitSettings } from '../network/connection-limits.js';
import { perIpOverrides, type BrokerConfig } from './config.js';

export function liveConnectionLimits(config: BrokerConfig, resolver: () => ConfigResolver | null): ConnectionLimitSettings {
  const current = (key: string): string | null => resolver()?.brokerValue(key) ?? null;
  return {
    get maxConnections(): number {
      return Number(current('max.connections') ?? config.maxConnections);
    },
    get maxConnectionsPerIp(): number {
      return Number(current('max.connections.per.ip') ?? config.maxConnectionsPerIp);
    },
    get maxConnectionsPerIpOverrides(): ReadonlyMap<string, number> {
      const value = current('max.connections.per.ip.overrides');
      return value === null ? config.maxConnectionsPerIpOverrides : perIpOverrides(value);
    },
  };
}
