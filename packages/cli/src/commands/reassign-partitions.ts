/**
 * `sluice reassign-partitions`, after Kafka's kafka-reassign-partitions.sh: `--execute` starts
 * the moves a reassignment JSON file describes (`{"version":1,"partitions":[{"topic":"t",
 * "partition":0,"replicas":[2,3],"log_dirs":["/data/b","any"]}]}`), `--verify` tells whether each
 * has completed, `--cancel` cancels those in progress, `--list` shows every reassignment in
 * progress. `log_dirs` (optional, one entry per replica, "any" for no choice) moves a replica
 * between its broker's log dirs (AlterReplicaLogDirs to that broker); as Kafka's tool, `--execute`
 * keeps asking while the broker answers REPLICA_NOT_AVAILABLE (the replica is not there yet), up
 * to `--timeout` ms.
 */
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { groupBy } from '@sluice/protocol/common/group-by.js';
import { ReplicaAdminClient } from '@sluice/client/index.js';
import { ErrorCode, errorName } from '@sluice/protocol/errors.js';
import {
  InputError,
  integerOption,
  oneAction,
  parseOptions,
  required,
  withCluster,
  writeOut,
  type Command,
  COMMAND_CONFIG_OPTION,
} from './command-support.js';
import type { TopicPartition } from '@sluice/protocol/common/topic-partition.js';

const USAGE = `usage: sluice reassign-partitions --bootstrap-server HOST:PORT [--command-config FILE]
         (--execute [--timeout MS] | --verify | --cancel) --reassignment-json-file FILE
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
  timeout: { type: 'string' },
} as const;

/** Kafka's default `--timeout`: how long `--execute` waits for log dir moves to start. */
const DEFAULT_TIMEOUT_MS = 10_000;
const RETRY_INTERVAL_MS = 100;
const ANY_LOG_DIR = 'any';

interface Move extends TopicPartition {
  readonly replicas: readonly number[];
}

/** One replica's move to a log dir of its broker. */
interface LogDirMove extends TopicPartition {
  readonly broker: number;
  readonly path: string;
}

const replicaName = (m: LogDirMove): string => `${m.topic}-${m.partition}-${m.broker}`;

function parseFile(path: string): { moves: Move[]; logDirMoves: LogDirMove[] } {
  const doc = JSON.parse(readFileSync(path, 'utf8')) as { partitions?: unknown };
  if (!Array.isArray(doc.partitions)) throw new InputError(`${path}: no "partitions" array`);
  const moves: Move[] = [];
  const logDirMoves: LogDirMove[] = [];
  for (const p of doc.partitions as unknown[]) {
    const r = p as { topic?: unknown; partition?: unknown; replicas?: unknown; log_dirs?: unknown };
    const valid =
      typeof r.topic === 'string' &&
      Number.isInteger(r.partition) &&
      Array.isArray(r.replicas) &&
      r.replicas.every((x) => Number.isInteger(x));
    if (!valid) throw new InputError(`${path}: malformed entry ${JSON.stringify(p)}`);
    const move = { topic: r.topic as string, partition: r.partition as number, replicas: r.replicas as number[] };
    moves.push(move);
    if (r.log_dirs === undefined) continue;
    if (!Array.isArray(r.log_dirs) || !r.log_dirs.every((d) => typeof d === 'string'))
      throw new InputError(`${path}: "log_dirs" of ${move.topic}-${move.partition} must be a list of strings`);
    if (r.log_dirs.length !== move.replicas.length) {
      const list = (items: readonly unknown[]): string => `[${items.join(', ')}]`;
      throw new InputError(
        `Size of replicas list ${list(move.replicas)} is different from size of log dirs list ${list(r.log_dirs)} for partition ${move.topic}-${move.partition}`,
      );
    }
    r.log_dirs.forEach((dir, i) => {
      if (dir !== ANY_LOG_DIR) logDirMoves.push({ topic: move.topic, partition: move.partition, broker: move.replicas[i]!, path: dir });
    });
  }
  return { moves, logDirMoves };
}

/** Kafka's `executeMoves`: asks each broker until every move has started; REPLICA_NOT_AVAILABLE is asked again. */
async function startLogDirMoves(admin: ReplicaAdminClient, moves: readonly LogDirMove[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let pending = [...moves];
  for (;;) {
    const started: LogDirMove[] = [];
    for (const [broker, share] of groupBy(pending, (m) => m.broker)) {
      const outcomes = await admin.alterReplicaLogDirs(broker, share);
      for (const m of share) {
        const code = outcomes.find((o) => o.topic === m.topic && o.partition === m.partition)?.errorCode ?? ErrorCode.UNKNOWN_SERVER_ERROR;
        if (code === ErrorCode.NONE) started.push(m);
        else if (code !== ErrorCode.REPLICA_NOT_AVAILABLE)
          throw new InputError(`Failed to alter dir for ${replicaName(m)}: ${errorName(code)}`);
      }
    }
    for (const m of started)
      await writeOut(
        `Successfully started moving log directory to ${m.path} for replica ${m.topic}-${m.partition} with broker ${m.broker} \n`,
      );
    pending = pending.filter((m) => !started.includes(m));
    if (pending.length === 0) return;
    if (Date.now() >= deadline) {
      throw new InputError(
        `Timed out before log directory move${pending.length === 1 ? '' : 's'} could be started for: ${pending.map(replicaName).join(',')}`,
      );
    }
    await sleep(RETRY_INTERVAL_MS);
  }
}

/** Kafka's `findLogDirMoveStates` and its report; returns whether every move is done. */
async function verifyLogDirMoves(admin: ReplicaAdminClient, moves: readonly LogDirMove[]): Promise<boolean> {
  let done = true;
  for (const [broker, share] of groupBy(moves, (m) => m.broker)) {
    const found = await admin.replicaLogDirs(broker, share);
    for (const m of share) {
      const where = found.find((f) => f.topic === m.topic && f.partition === m.partition);
      let line: string;
      if (where === undefined) line = `Partition ${m.topic}-${m.partition} cannot be found in any live log directory on broker ${broker}.`;
      else if (where.current === null)
        line = `Partition ${m.topic}-${m.partition} is not found in any live log dir on broker ${broker}. There is likely an offline log directory on the broker.`;
      else if (where.future !== null) {
        line =
          where.future === m.path
            ? `Reassignment of replica ${replicaName(m)} is still in progress.`
            : `Partition ${m.topic}-${m.partition} on broker ${broker} is being moved to log dir ${where.future} instead of ${m.path}.`;
      } else if (where.current === m.path) line = `Reassignment of replica ${replicaName(m)} completed successfully.`;
      else line = `Partition ${m.topic}-${m.partition} on broker ${broker} is not being moved from log dir ${where.current} to ${m.path}.`;
      done &&= where?.future === null && where.current === m.path;
      await writeOut(`${line}\n`);
    }
  }
  return done;
}

async function run(args: string[]): Promise<void> {
  const o = parseOptions(args, OPTIONS);
  const action = oneAction({ execute: o.execute, verify: o.verify, cancel: o.cancel, list: o.list });
  const timeoutMs = integerOption(o.timeout, 'timeout', 0) ?? DEFAULT_TIMEOUT_MS;
  await withCluster(o, async (cluster) => {
    const admin = new ReplicaAdminClient(cluster);
    if (action === 'list') {
      await writeOut('Current partition reassignments:\n');
      for (const r of await admin.listReassignments()) {
        await writeOut(
          `${r.topic}-${r.partition}: replicas: ${r.replicas.join(',')}. adding: ${r.adding.join(',')}. removing: ${r.removing.join(',')}.\n`,
        );
      }
      return;
    }
    const { moves, logDirMoves } = parseFile(required(o['reassignment-json-file'], 'reassignment-json-file'));
    if (action === 'verify') {
      const ongoing = new Set((await admin.listReassignments(moves)).map((r) => `${r.topic}-${r.partition}`));
      const metadata = await cluster.metadata([...new Set(moves.map((m) => m.topic))]);
      await writeOut('Status of partition reassignment:\n');
      for (const m of moves) {
        const now = metadata.topics.get(m.topic)?.partitions.find((p) => p.partition === m.partition)?.replicas ?? [];
        const status = ongoing.has(`${m.topic}-${m.partition}`)
          ? 'is still in progress'
          : now.join() === m.replicas.join()
            ? 'is completed'
            : 'failed: its replicas are not the target';
        await writeOut(`Reassignment of partition ${m.topic}-${m.partition} ${status}.\n`);
      }
      if (logDirMoves.length > 0) await verifyLogDirMoves(admin, logDirMoves);
      return;
    }
    const outcomes = await admin.alterReassignments(moves.map((m) => ({ ...m, replicas: action === 'cancel' ? null : m.replicas })));
    for (const r of outcomes) {
      if (r.errorCode === ErrorCode.NONE)
        await writeOut(
          `Successfully ${action === 'cancel' ? 'cancelled' : 'started'} partition reassignment for ${r.topic}-${r.partition}\n`,
        );
      else {
        await writeOut(
          `Error ${action === 'cancel' ? 'cancelling' : 'starting'} partition reassignment for ${r.topic}-${r.partition}: ${r.errorMessage ?? `error ${r.errorCode}`}\n`,
        );
        process.exitCode = 1;
      }
    }
    if (action === 'execute' && logDirMoves.length > 0 && process.exitCode !== 1) await startLogDirMoves(admin, logDirMoves, timeoutMs);
  });
}

export const reassignPartitionsCommand: Command = { usage: USAGE, run };
