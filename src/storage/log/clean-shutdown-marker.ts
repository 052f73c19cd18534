/**
 * Kafka's clean-shutdown marker in a log dir: present, the logs need no recovery. Its own module
 * so the main thread can read and remove it without loading the storage engine.
 */
import { closeSync, existsSync, fsyncSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { syncDirectory } from '../checkpoint/checkpoint-file.js';
import { CLEAN_SHUTDOWN_FILE } from '../file-names.js';

export function hasCleanShutdownMarker(logDir: string): boolean {
  return existsSync(join(logDir, CLEAN_SHUTDOWN_FILE));
}

/** Removed once the logs are loaded, so a crash after start-up is never mistaken for a clean stop. */
export function removeCleanShutdownMarker(logDir: string): void {
  try {
    unlinkSync(join(logDir, CLEAN_SHUTDOWN_FILE));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    return;
  }
  syncDirectory(logDir);
}

/** Kafka 3.7+ writes a small JSON document; older versions an empty file. Either way, presence is what counts. */
export function writeCleanShutdownMarker(logDir: string): void {
  const fd = openSync(join(logDir, CLEAN_SHUTDOWN_FILE), 'w');
  try {
    writeSync(fd, '{"version":0,"brokerEpoch":-1}');
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  syncDirectory(logDir);
}
