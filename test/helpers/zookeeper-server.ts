/**
 * A throwaway ZooKeeper server for an integration test file: started in `before`, stopped by PID
 * in `after`. The start/stop logic is the product's (`src/zk/zookeeper-server.ts`, also used by
 * `sluice cluster up`); this only fixes the test defaults. Guard the file with `zooKeeperSkip()`.
 */
import { startZooKeeper as startServer, type ZooKeeperServer } from '../../src/zk/zookeeper-server.js';

export type { ZooKeeperServer };

/** `dataDir` (kept when the server stops) and `port` let a test restart a server where it was. */
export function startZooKeeper(options: { dataDir?: string; port?: number } = {}): Promise<ZooKeeperServer> {
  return startServer({ ...options, startTimeoutMs: 60_000 });
}
