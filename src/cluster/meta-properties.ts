/**
 * `meta.properties` in each log dir, as Kafka writes it: the cluster id and node id the
 * directory belongs to, so that a directory from another cluster or node is refused at start
 * rather than silently mixed in.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, parseProperties } from '../broker/config.js';
import { writeFileAtomically } from './atomic-file.js';
import { randomUuid } from './uuid.js';

export const META_PROPERTIES = 'meta.properties';

/**
 * Returns the cluster id of these log dirs: the stored one, else the configured one, else a new
 * one; writes meta.properties where it is missing.
 */
export function loadOrFormatLogDirs(logDirs: readonly string[], nodeId: number, configuredClusterId: string | null): string {
  let clusterId = configuredClusterId;
  const missing: string[] = [];
  for (const dir of logDirs) {
    const path = join(dir, META_PROPERTIES);
    if (!existsSync(path)) {
      missing.push(dir);
      continue;
    }
    const props = parseProperties(readFileSync(path, 'utf8'));
    const storedCluster = props.get('cluster.id');
    const storedNode = props.get('node.id');
    if (storedCluster === undefined) throw new ConfigError('log.dirs', `${path} has no cluster.id`);
    if (clusterId !== null && storedCluster !== clusterId) {
      throw new ConfigError('cluster.id', `${path} belongs to cluster ${storedCluster}, not ${clusterId}`);
    }
    if (storedNode !== undefined && Number(storedNode) !== nodeId) {
      throw new ConfigError('node.id', `${path} belongs to node ${storedNode}, not ${nodeId}`);
    }
    clusterId = storedCluster;
  }
  const id = clusterId ?? randomUuid();
  for (const dir of missing) {
    mkdirSync(dir, { recursive: true });
    const text = `#\n#${new Date().toString()}\nnode.id=${nodeId}\ndirectory.id=${randomUuid()}\nversion=1\ncluster.id=${id}\n`;
    writeFileAtomically(join(dir, META_PROPERTIES), text);
  }
  return id;
}
