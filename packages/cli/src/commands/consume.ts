/**
 * `sluice consume`, after kafka-console-consumer.sh without a group: reads one topic (or one
 * partition) from the end, the beginning, an offset or a timestamp, and writes each record's
 * value, optionally `key<separator>value`, one per line, bytes as stored. Stops after
 * `--max-messages`, after `--timeout-ms` without a record, or on SIGINT/SIGTERM, and reports
 * the count on stderr as Kafka's tool does.
 */
import { KafkaConsumerClient, type OffsetSpec, type Positions } from '@sluice/client/index.js';
import {
  integerOption,
  parseOptions,
  required,
  UsageError,
  withCluster,
  writeOut,
  type Command,
  COMMAND_CONFIG_OPTION,
} from './command-support.js';

const USAGE = `usage: sluice consume --bootstrap-server HOST:PORT [--command-config FILE] --topic T [--partition P]
         [--from-beginning | --offset N|earliest|latest | --from-timestamp EPOCH_MS]
         [--max-messages N] [--timeout-ms N] [--print-key] [--key-separator SEP]
`;

const OPTIONS = {
  'bootstrap-server': { type: 'string' },
  ...COMMAND_CONFIG_OPTION,
  topic: { type: 'string' },
  partition: { type: 'string' },
  'from-beginning': { type: 'boolean' },
  offset: { type: 'string' },
  'from-timestamp': { type: 'string' },
  'max-messages': { type: 'string' },
  'timeout-ms': { type: 'string' },
  'print-key': { type: 'boolean' },
  'key-separator': { type: 'string' },
} as const;

/** Kafka's `fetch.max.wait.ms` default. */
const MAX_WAIT_MS = 500;
const NULL_TEXT = Buffer.from('null');
const NEWLINE = Buffer.from('\n');

type StartAt = OffsetSpec | { readonly offset: bigint };

async function run(args: string[]): Promise<void> {
  const o = parseOptions(args, OPTIONS);
  const topic = required(o.topic, 'topic');
  const partition = integerOption(o.partition, 'partition', 0, 0x7fffffff);
  const maxMessages = integerOption(o['max-messages'], 'max-messages', 1);
  const timeoutMs = integerOption(o['timeout-ms'], 'timeout-ms', 0);
  const startAt = parseStart(o['from-beginning'] === true, o.offset, o['from-timestamp'], partition);
  const separator = Buffer.from(o['key-separator'] ?? '\t');
  const printKey = o['print-key'] === true;

  let stopping = false;
  const stop = (): void => {
    stopping = true;
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  let count = 0;
  try {
    await withCluster(o, async (cluster) => {
      const consumer = new KafkaConsumerClient(cluster, topic, { maxWaitMs: Math.min(MAX_WAIT_MS, timeoutMs ?? MAX_WAIT_MS) });
      const metadata = await consumer.partitions();
      const partitions = partition === undefined ? metadata.partitions.map((p) => p.partition) : [partition];
      if (partition !== undefined && !metadata.partitions.some((p) => p.partition === partition)) {
        throw new UsageError(`topic '${topic}' has no partition ${partition} (it has ${metadata.partitions.length})`);
      }
      const positions: Positions =
        typeof startAt === 'object' && 'offset' in startAt
          ? new Map([[partitions[0]!, startAt.offset]])
          : await consumer.listOffsets(partitions, startAt);
      let lastRecordAt = Date.now();
      while (!stopping) {
        const records = await consumer.fetch(positions);
        for (const r of records) {
          if (printKey) await writeOut(Buffer.concat([r.key ?? NULL_TEXT, separator, r.value ?? NULL_TEXT, NEWLINE]));
          else await writeOut(Buffer.concat([r.value ?? NULL_TEXT, NEWLINE]));
          if (++count === maxMessages) return;
        }
        if (records.length > 0) lastRecordAt = Date.now();
        else if (timeoutMs !== undefined && Date.now() - lastRecordAt >= timeoutMs) return;
      }
    });
  } finally {
    process.removeListener('SIGINT', stop);
    process.removeListener('SIGTERM', stop);
    process.stderr.write(`Processed a total of ${count} messages\n`);
  }
}

function parseStart(
  fromBeginning: boolean,
  offset: string | undefined,
  fromTimestamp: string | undefined,
  partition: number | undefined,
): StartAt {
  const given = [fromBeginning, offset !== undefined, fromTimestamp !== undefined].filter(Boolean).length;
  if (given > 1) throw new UsageError('give at most one of --from-beginning, --offset, --from-timestamp');
  if (fromBeginning || offset === 'earliest') return 'earliest';
  if (fromTimestamp !== undefined) {
    if (!/^\d+$/.test(fromTimestamp)) throw new UsageError(`--from-timestamp takes epoch milliseconds, not '${fromTimestamp}'`);
    return { timestamp: BigInt(fromTimestamp) };
  }
  if (offset === undefined || offset === 'latest') return 'latest';
  if (!/^\d+$/.test(offset)) throw new UsageError(`--offset takes a non-negative offset, earliest or latest, not '${offset}'`);
  // As in kafka-console-consumer: an absolute offset means one partition's offset.
  if (partition === undefined) throw new UsageError('--offset N needs --partition');
  return { offset: BigInt(offset) };
}

export const consumeCommand: Command = { usage: USAGE, run };
