/**
 * Formats the log dirs before anything else opens them: each gets a `meta.properties` naming
 * the cluster, this node and the directory, and a directory from another cluster or node is
 * refused at start rather than silently mixed in. Done once, on the main thread, before the
 * partition workers load their logs.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { randomUuid } from '@sluice/protocol/common/uuid.js';
import { readMetaProperties, writeMetaProperties } from '../storage/checkpoint/meta-properties.js';
import { ConfigError } from './config.js';

/**
 * Returns the cluster id of these log dirs: the stored one, else the configured one, else a new
 * one; writes meta.properties where it is missing.
 */
export function loadOrFormatLogDirs(logDirs: readonly string[], nodeId: number, configuredClusterId: string | null): string {
  let clusterId = configuredClusterId;
  const missing: string[] = [];
  for (const dir of logDirs) {
    const meta = readMetaProperties(dir);
    if (meta === null) {
      missing.push(dir);
      continue;
    }
    const path = join(dir, 'meta.properties');
    if (meta.clusterId === null) throw new ConfigError('log.dirs', `${path} has no cluster.id`);
    if (clusterId !== null && meta.clusterId !== clusterId) {
      throw new ConfigError('cluster.id', `${path} belongs to cluster ${meta.clusterId}, not ${clusterId}`);
    }
    if (meta.nodeId !== null && meta.nodeId !== nodeId) {
      throw new ConfigError('node.id', `${path} belongs to node ${meta.nodeId}, not ${nodeId}`);
    }
    clusterId = meta.clusterId;
  }
  const id = clusterId ?? randomUuid();
  for (const dir of missing) {
    mkdirSync(dir, { recursive: true });
    writeMetaProperties(dir, { version: 1, clusterId: id, nodeId, directoryId: randomUuid() });
  }
  return id;
}
