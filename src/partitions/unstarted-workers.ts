/**
 * What the partition workers would answer before any of them has started, computed on the main
 * thread so that a broadcast does not start one: a worker not started hosts no logs (its owners
 * of logs on disk start at once), so every log dir is empty, and a clean stop writes only the
 * clean-shutdown markers.
 */
import { writeCleanShutdownMarker } from '../storage/log/clean-shutdown-marker.js';
import { logDirSpace } from './log-dir-space.js';
import type { WorkerLogDir } from './partition-protocol.js';

/** `PartitionOps.describeLogDirs` of a worker that hosts nothing; `offline` are the dirs taken offline. */
export function emptyLogDirs(logDirs: readonly string[], offline: ReadonlySet<string>): WorkerLogDir[] {
  return logDirs.map((path) => ({ path, online: !offline.has(path), ...logDirSpace(path), partitions: [] }));
}

/** `PartitionOps.writeCheckpoints` after a clean stop, with no log anywhere: the markers of the online dirs. */
export function markCleanShutdown(logDirs: readonly string[], offline: ReadonlySet<string>): void {
  for (const path of logDirs) if (!offline.has(path)) writeCleanShutdownMarker(path);
}
