/**
 * `sluice produce`, after kafka-console-producer.sh: one record per stdin line, optionally
 * `key<separator>value` (Kafka's `parse.key`). Lines are sent in batches of whatever stdin has
 * ready, so piped files go out in large batches and typed lines go out at once.
 */
import {
  COMPRESSION_NAMES,
  compressionType,
  isCompressionName,
  KafkaProducerClient,
  type Acks,
  type ProducerRecord,
} from '@sluice/client/index.js';
import {
  InputError,
  integerOption,
  parseOptions,
  required,
  UsageError,
  withCluster,
  type Command,
  COMMAND_CONFIG_OPTION,
} from './command-support.js';
import { LineSplitter } from './line-splitter.js';

const USAGE = `usage: sluice produce --bootstrap-server HOST:PORT [--command-config FILE] --topic T [--partition P] [--acks -1|0|1]
         [--compression ${COMPRESSION_NAMES.join('|')}] [--key-separator SEP]
  reads one record per line from stdin; with --key-separator each line is KEY<SEP>VALUE
`;

const OPTIONS = {
  'bootstrap-server': { type: 'string' },
  ...COMMAND_CONFIG_OPTION,
  topic: { type: 'string' },
  partition: { type: 'string' },
  acks: { type: 'string' },
  compression: { type: 'string' },
  'key-separator': { type: 'string' },
} as const;

/** Bounds one Produce request well below Kafka's default 1 MiB `message.max.bytes`. */
const MAX_BATCH_BYTES = 512 * 1024;

async function run(args: string[]): Promise<void> {
  const o = parseOptions(args, OPTIONS);
  const topic = required(o.topic, 'topic');
  const partition = integerOption(o.partition, 'partition', 0, 0x7fffffff);
  const acks = parseAcks(o.acks ?? '-1');
  const compression = o.compression ?? 'none';
  if (!isCompressionName(compression))
    throw new UsageError(`--compression must be one of ${COMPRESSION_NAMES.join(', ')}, not '${compression}'`);
  const separator = o['key-separator'] === undefined ? null : Buffer.from(o['key-separator']);
  if (separator !== null && separator.length === 0) throw new UsageError('--key-separator must not be empty');

  await withCluster(o, async (cluster) => {
    const producer = new KafkaProducerClient(cluster, { acks, compression: compressionType(compression) });
    const splitter = new LineSplitter();
    let lineNumber = 0;
    let batch: ProducerRecord[] = [];
    let batchBytes = 0;
    const add = (line: Buffer): void => {
      lineNumber++;
      batch.push(toRecord(line, separator, partition, lineNumber));
      batchBytes += line.length;
    };
    const flush = async (): Promise<void> => {
      if (batch.length === 0) return;
      const records = batch;
      batch = [];
      batchBytes = 0;
      await producer.send(topic, records);
    };
    for await (const chunk of process.stdin as AsyncIterable<Buffer>) {
      for (const line of splitter.push(chunk)) {
        add(line);
        if (batchBytes >= MAX_BATCH_BYTES) await flush();
      }
      if (process.stdin.readableLength === 0) await flush();
    }
    const last = splitter.end();
    if (last !== null) add(last);
    await flush();
  });
}

function parseAcks(text: string): Acks {
  if (text === 'all') return -1;
  if (text === '-1' || text === '0' || text === '1') return Number(text) as Acks;
  throw new UsageError(`--acks must be -1 (all), 0 or 1, not '${text}'`);
}

function toRecord(line: Buffer, separator: Buffer | null, partition: number | undefined, lineNumber: number): ProducerRecord {
  if (separator === null) return { key: null, value: line, partition };
  const at = line.indexOf(separator);
  if (at < 0) throw new InputError(`no key separator '${separator.toString()}' on line ${lineNumber}: '${line.toString()}'`);
  return { key: line.subarray(0, at), value: line.subarray(at + separator.length), partition };
}

export const produceCommand: Command = { usage: USAGE, run };
