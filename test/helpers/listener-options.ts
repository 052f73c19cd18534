/** The options of a plain test listener with no limits to speak of; tests override what they check. */
import { Logger } from '../../src/common/logger.js';
import { BrokerMetrics } from '../../src/common/metrics/broker-metrics.js';
import { RateLimitedLog } from '../../src/common/rate-limited-log.js';
import { ConnectionLimits } from '../../src/network/connection-limits.js';
import type { ListenerOptions } from '../../src/network/listener.js';

export function testListenerOptions(overrides: Partial<ListenerOptions> = {}): ListenerOptions {
  return {
    listenerName: 'PLAINTEXT',
    securityProtocol: 'PLAINTEXT',
    maxFrameBytes: 1 << 20,
    maxInFlightRequests: 10,
    idleTimeoutMs: 0,
    metrics: new BrokerMetrics(),
    clientWarnings: new RateLimitedLog(new Logger('test'), 5),
    tls: null,
    limits: new ConnectionLimits({ maxConnections: 100, maxConnectionsPerIp: 100, maxConnectionsPerIpOverrides: new Map() }),
    ...overrides,
  };
}
