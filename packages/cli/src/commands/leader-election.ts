/**
 * `sluice leader-election`, after Kafka's kafka-leader-election.sh: a preferred or unclean
 * leader election for all partitions, one topic's, one partition, or those a JSON file lists
 * (`{"partitions":[{"topic":"t","partition":0}]}`), reported as Kafka's tool reports it.
 */
import { readFileSync } from 'node:fs';
import { ElectionTypes, ReplicaAdminClient, type PartitionOutcome } from '@sluice/client/index.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import {
  InputError,
  integerOption,
  parseOptions,
  required,
  UsageError,
  withCluster,
  writeOut,
  type Command,
  COMMAND_CONFIG_OPTION,
} from './command-support.js';
import type { TopicPartition } from '@sluice/protocol/common/topic-partition.js';

const USAGE = `usage: sluice leader-election --bootstrap-server HOST:PORT [--command-config FILE] --election-type PREFERRED|UNCLEAN
         (--all-topic-partitions | --topic T [--partition P] | --path-to-json-file FILE)
`;

const OPTIONS = {
  'bootstrap-server': { type: 'string' },
  ...COMMAND_CONFIG_OPTION,
  'election-type': { type: 'string' },
  'all-topic-partitions': { type: 'boolean' },
  topic: { type: 'string' },
  partition: { type: 'string' },
  'path-to-json-file': { type: 'string' },
} as const;

function partitionsFromFile(path: string): TopicPartition[] {
  const doc = JSON.parse(readFileSync(path, 'utf8')) as { partitions?: unknown };
  if (!Array.isArray(doc.partitions)) throw new InputError(`${path}: no "partitions" array`);
  return doc.partitions.map((p: unknown) => {
    const r = p as { topic?: unknown; partition?: unknown };
    if (typeof r.topic !== 'string' || !Number.isInteger(r.partition))
      throw new InputError(`${path}: malformed entry ${JSON.stringify(p)}`);
    return { topic: r.topic, partition: r.partition as number };
  });
}

function names(outcomes: readonly PartitionOutcome[]): string {
  return outcomes.map((o) => `${o.topic}-${o.partition}`).join(', ');
}

async function run(args: string[]): Promise<void> {
  const o = parseOptions(args, OPTIONS);
  const type = required(o['election-type'], 'election-type').toUpperCase();
  if (type !== 'PREFERRED' && type !== 'UNCLEAN') throw new UsageError(`--election-type is PREFERRED or UNCLEAN, not ${type}`);
  const chosen = [o['all-topic-partitions'] === true, o.topic !== undefined, o['path-to-json-file'] !== undefined].filter(Boolean).length;
  if (chosen !== 1) throw new UsageError('exactly one of --all-topic-partitions, --topic, --path-to-json-file');
  await withCluster(o, async (cluster) => {
    let partitions: TopicPartition[] | null = null;
    if (o['path-to-json-file'] !== undefined) partitions = partitionsFromFile(o['path-to-json-file']);
    else if (o.topic !== undefined) {
      const partition = integerOption(o.partition, 'partition', 0);
      const topic = (await cluster.metadata([o.topic])).topics.get(o.topic);
      if (topic === undefined) throw new InputError(`Topic ${o.topic} does not exist`);
      partitions =
        partition !== undefined
          ? [{ topic: o.topic, partition }]
          : topic.partitions.map((p) => ({ topic: o.topic!, partition: p.partition }));
    }
    const outcomes = await new ReplicaAdminClient(cluster).electLeaders(ElectionTypes[type], partitions);
    const done = outcomes.filter((r) => r.errorCode === ErrorCode.NONE);
    const notNeeded = outcomes.filter((r) => r.errorCode === ErrorCode.ELECTION_NOT_NEEDED);
    const failed = outcomes.filter((r) => r.errorCode !== ErrorCode.NONE && r.errorCode !== ErrorCode.ELECTION_NOT_NEEDED);
    if (done.length > 0) await writeOut(`Successfully completed leader election (${type}) for partitions ${names(done)}\n`);
    if (notNeeded.length > 0) await writeOut(`Valid replica already elected for partitions ${names(notNeeded)}\n`);
    if (failed.length > 0) {
      await writeOut(`Error completing leader election (${type}) for partitions ${names(failed)}:\n`);
      for (const f of failed) await writeOut(`  ${f.topic}-${f.partition}: ${f.errorMessage ?? `error ${f.errorCode}`}\n`);
      process.exitCode = 1;
    }
  });
}

export const leaderElectionCommand: Command = { usage: USAGE, run };
