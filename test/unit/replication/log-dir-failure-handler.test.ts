/**
 * The log dir failure handler's answer to a dir that went offline: the dir given up by every
 * worker, its current replicas taken offline and the controller told, once; a future log there
 * (a partition moving into that dir, served from its current dir) is not a replica going offline.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { LogDirDescription } from '../../../src/metadata/admin/partition-admin.js';
import { Logger } from '../../../src/common/logger.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { LogDirFailureHandler } from '../../../src/replication/log-dir-failure-handler.js';
import { waitFor, when } from '../../helpers/wait-for.js';

test('a failed dir: its current replicas go offline, not the future log of a partition moving into it', async () => {
  const part = (partition: number, isFuture: boolean) => ({ topic: 't', partition, sizeBytes: 1n, offsetLag: 0n, isFuture });
  const dirs: LogDirDescription[] = [
    { path: '/a', errorCode: ErrorCode.NONE, totalBytes: 1n, usableBytes: 1n, partitions: [part(0, false)] },
    { path: '/b', errorCode: ErrorCode.KAFKA_STORAGE_ERROR, totalBytes: 1n, usableBytes: 1n, partitions: [part(0, true), part(1, false)] },
  ];
  const events: string[] = [];
  const handler = new LogDirFailureHandler({
    logs: {
      describeLogDirs: async () => dirs,
      takeLogDirOffline: async (path) => void events.push(`offline dir ${path}`),
    },
    markOffline: async (partitions) => void events.push(`offline ${partitions.map((p) => `${p.topic}-${p.partition}`).join(',')}`),
    notifyController: async () => void events.push('controller told'),
    onAllFailed: () => events.push('all failed'),
    checkIntervalMs: 5,
    log: new Logger('test'),
  });
  handler.start();
  try {
    await waitFor('the failure to be handled', 5000, () => when(events.length >= 3), 5);
    // Fixed on purpose: with checks every 5 ms, handling the dir a second time would show within these 50 ms.
    await sleep(50);
  } finally {
    handler.close();
  }
  assert.deepEqual(events, ['offline dir /b', 'offline t-1', 'controller told'], 'handled once');
});
