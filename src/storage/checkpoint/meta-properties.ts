/**
 * `meta.properties` at the root of a log dir, Java properties as Kafka 4.x writes them
 * (`MetaProperties`, version 1): `cluster.id`, `directory.id`, `node.id`, `version=1`, after a
 * comment with the date. Read to learn the directory id; written when a log dir is first used.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomically } from '../../common/atomic-file.js';
import { META_PROPERTIES_FILE } from '../file-names.js';

export interface MetaProperties {
  readonly version: number;
  readonly clusterId: string | null;
  readonly nodeId: number | null;
  readonly directoryId: string | null;
}

export function readMetaProperties(logDir: string): MetaProperties | null {
  let text: string;
  try {
    text = readFileSync(join(logDir, META_PROPERTIES_FILE), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  const props = new Map<string, string>();
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#') || trimmed.startsWith('!')) continue;
    const eq = trimmed.search(/[=:]/);
    if (eq > 0) props.set(trimmed.slice(0, eq).trim(), trimmed.slice(eq + 1).trim());
  }
  const nodeId = props.get('node.id') ?? props.get('broker.id');
  return {
    version: Number(props.get('version') ?? 0),
    clusterId: props.get('cluster.id') ?? null,
    nodeId: nodeId === undefined ? null : Number(nodeId),
    directoryId: props.get('directory.id') ?? null,
  };
}

export function writeMetaProperties(logDir: string, meta: MetaProperties): void {
  const lines = ['#', `#${new Date().toUTCString()}`];
  if (meta.clusterId !== null) lines.push(`cluster.id=${meta.clusterId}`);
  if (meta.directoryId !== null) lines.push(`directory.id=${meta.directoryId}`);
  if (meta.nodeId !== null) lines.push(`node.id=${meta.nodeId}`);
  lines.push(`version=${meta.version}`);
  writeFileAtomically(join(logDir, META_PROPERTIES_FILE), lines.join('\n') + '\n');
}
