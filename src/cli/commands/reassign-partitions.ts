/**
 * `sluice reassign-partitions`, after Kafka's kafka-reassign-partitions.sh: `--execute` starts
 * the moves a reassignment JSON file describes (`{"version":1,"partitions":[{"topic":"t",
 * "partition":0,"replicas":[2,3]}]}`), `--verify` tells whether each has completed, `--cancel`
 * cancels those in progress, `--list` shows every reassignment in progress.
 */
import { readFileSync } from 'node:fs';
import { ReplicaAdminClient, type TopicPartition } from '../../client/index.js';
import { ErrorCode } from '../../protocol/errors.js';
import { InputError, oneAction, parseOptions, required, withCluster, writeOut, type Command, COMMAND_CONFIG_OPTION } from './command-support.js';

const USAGE = `usage: sluice reassign-partitions --bootstrap-server HOST:PORT [--command-config FILE]
         (--execute | --verify | --cancel) --reassignment-json-file FILE
       | --list
`;

const OPTIONS = {
  'bootstrap-server': { type: 'string' },
  ...COMMAND_CONFIG_OPTION,
  'reassignment-json-file': { type: 'string' },
  execute: { type: 'boolean' },
  verify: { type: 'boolean' },
  cancel: { type: 'boolean' },
  list: { type: 'boolean' },
} as const;

interface Move extends TopicPartition {
  readonly replicas: readonly number[];
}

function movesFromFile(path: string): Move[] {
  const doc = JSON.parse(readFileSync(path, 'utf8')) as { partitions?: unknown };
  if (!Array.isArray(doc.partitions)) throw new InputError(`${path}: no "partitions" array`);
  return doc.partitions.map((p: unknown) => {
    const r = p as { topic?: unknown; partition?: unknown; replicas?: unknown };
    const valid = typeof r.topic === 'string' && Number.isInteger(r.partition) && Array.isArray(r.replicas) && r.replicas.every((x) => Number.isInteger(x));
    if (!valid) throw new InputError(`${path}: malformed entry ${JSON.stringify(p)}`);
    return { topic: r.topic as string, partition: r.partition as number, replicas: r.replicas as number[] };
  });
}

async function run(args: string[]): Promise<void> {
  const o = parseOptions(args, OPTIONS);
  const action = oneAction({ execute: o.execute, verify: o.verify, cancel: o.cancel, list: o.list });
  await withCluster(o, async (cluster) => {
    const admin = new ReplicaAdminClient(cluster);
    if (action === 'list') {
      await writeOut('Current partition reassignments:\n');
      for (const r of await admin.listReassignments()) {
        await writeOut(`${r.topic}-${r.partition}: replicas: ${r.replicas.join(',')}. adding: ${r.adding.join(',')}. removing: ${r.removing.join(',')}.\n`);
      }
      return;
    }
    const moves = movesFromFile(required(o['reassignment-json-file'], 'reassignment-json-file'));
    if (action === 'verify') {
      const ongoing = new Set((await admin.listReassignments(moves)).map((r) => `${r.topic}-${r.partition}`));
      const metadata = await cluster.metadata([...new Set(moves.map((m) => m.topic))]);
      await writeOut('Status of partition reassignment:\n');
      for (const m of moves) {
        const now = metadata.topics.get(m.topic)?.partitions.find((p) => p.partition === m.partition)?.replicas ?? [];
        const status = ongoing.has(`${m.topic}-${m.partition}`) ? 'is still in progress' : now.join() === m.replicas.join() ? 'is completed' : 'failed: its replicas are not the target';
        await writeOut(`Reassignment of partition ${m.topic}-${m.partition} ${status}.\n`);
      }
      return;
    }
    const outcomes = await admin.alterReassignments(moves.map((m) => ({ ...m, replicas: action === 'cancel' ? null : m.replicas })));
    for (const r of outcomes) {
      if (r.errorCode === ErrorCode.NONE) await writeOut(`Successfully ${action === 'cancel' ? 'cancelled' : 'started'} partition reassignment for ${r.topic}-${r.partition}\n`);
      else {
        await writeOut(`Error ${action === 'cancel' ? 'cancelling' : 'starting'} partition reassignment for ${r.topic}-${r.partition}: ${r.errorMessage ?? `error ${r.errorCode}`}\n`);
        process.exitCode = 1;
      }
    }
  });
}

export const reassignPartitionsCommand: Command = { usage: USAGE, run };
