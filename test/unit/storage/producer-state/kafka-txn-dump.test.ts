/**
 * Kafka 4.4.0's DumpLogSegments reads what Sluice writes for transactions: the abort marker (a
 * control batch with its coordinator epoch), the `.txnindex` entry, and a producer snapshot with
 * an open transaction. Skipped without Java or Kafka's jars (tools/kafka/fetch-kafka.sh).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { encodeRecordBatch } from '@sluice/protocol/records/index.js';
import { kafkaClasspath } from '../../../../tools/kafka/kafka-release.js';
import { javaSkip } from '../../../helpers/requirements.js';
import { appendVerified, FakeClock, openLog, tempDir } from '../storage-fixtures.js';

const execFileAsync = promisify(execFile);

test(
  "Kafka's DumpLogSegments lists the abort marker, its .txnindex entry and an open transaction in the snapshot",
  { skip: javaSkip() },
  async () => {
    const root = tempDir('txn-dump');
    const clock = new FakeClock();
    try {
      const log = openLog(root.path, clock);
      const data = (producerId: bigint): Buffer =>
        encodeRecordBatch({
          producerId,
          producerEpoch: 0,
          baseSequence: 0,
          isTransactional: true,
          records: [{ key: null, value: Buffer.from('x'), timestamp: BigInt(clock.nowMs) }],
        });
      appendVerified(log, data(7n), { leaderEpoch: 0 }); // 0
      log.appendTxnMarker(
        { producerId: 7n, producerEpoch: 0, coordinatorEpoch: 5, commit: false, transactionVersion: 0 },
        { leaderEpoch: 0 },
      ); // 1
      appendVerified(log, data(8n), { leaderEpoch: 0 }); // 2: left open
      log.close();
      const stem = join(log.dir, '00000000000000000000');
      const files = [`${stem}.log`, `${stem}.txnindex`, join(log.dir, '00000000000000000003.snapshot')].join(',');
      const { stdout } = await execFileAsync(
        'java',
        ['-cp', kafkaClasspath(), 'org.apache.kafka.tools.DumpLogSegments', '--deep-iteration', '--files', files],
        {
          maxBuffer: 16 * 1024 * 1024,
          timeout: 60_000,
        },
      );
      assert.match(
        stdout,
        /baseOffset: 1 lastOffset: 1 count: 1 baseSequence: -1 lastSequence: -1 producerId: 7 producerEpoch: 0 .*isTransactional: true isControl: true .*isvalid: true/,
      );
      assert.match(stdout, /\| offset: 1 .*endTxnMarker: ABORT coordinatorEpoch: 5/);
      assert.match(stdout, /^version: 0 producerId: 7 firstOffset: 0 lastOffset: 1 lastStableOffset: 2$/m);
      assert.match(stdout, /producerId: 8 producerEpoch: 0 coordinatorEpoch: -1 currentTxnFirstOffset: (OptionalLong\[|Optional\[)?2/);
      assert.match(
        stdout,
        /producerId: 7 producerEpoch: 0 coordinatorEpoch: 5 currentTxnFirstOffset: (OptionalLong\.empty|Optional\.empty|-1)/,
      );
    } finally {
      root.remove();
    }
  },
);
