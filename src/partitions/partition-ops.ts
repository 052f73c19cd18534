/**
 * The op module of a partition worker: it builds the worker's `WorkerPartitions` (its logs, its
 * `Partition` replicas and every op's implementation, `worker-partitions.ts`) and binds it to the
 * rings: each `PartitionOps` op served by the method of the same name, the log dir moves and
 * maintenance as ticks, the logs closed at shutdown. Runs in the worker thread.
 */
import { PartitionOps, parseWorkerOptions } from './partition-protocol.js';
import { WorkerPartitions } from './worker-partitions.js';
import type { RegisterOps, WorkerSetup } from '../worker-pool/op-module.js';
import type { WorkerOp } from '../worker-pool/worker-op.js';

/** How often moving partitions copy into their future logs. */
const LOG_MOVE_INTERVAL_MS = 20;

/** One op served by one method of the worker's partitions. */
type Binding = (setup: WorkerSetup, partitions: WorkerPartitions) => void;

function serving<Req, Rep>(op: WorkerOp<Req, Rep>, method: (partitions: WorkerPartitions, request: Req) => Rep | Promise<Rep>): Binding {
  return (setup, partitions) => setup.serve(op, (request) => method(partitions, request));
}

/** Every op the worker serves, keyed as `PartitionOps` is: the compiler refuses one left out. */
const OP_TABLE: { readonly [Name in keyof typeof PartitionOps]: Binding } = {
  open: serving(PartitionOps.open, (p, c) => p.open(c)),
  delete: serving(PartitionOps.delete, (p, c) => p.delete(c)),
  updateConfig: serving(PartitionOps.updateConfig, (p, c) => p.updateConfig(c)),
  append: serving(PartitionOps.append, (p, entries) => p.append(entries)),
  read: serving(PartitionOps.read, (p, commands) => p.read(commands)),
  release: serving(PartitionOps.release, (p, ids) => p.release(ids)),
  listOffset: serving(PartitionOps.listOffset, (p, c) => p.listOffset(c)),
  deleteRecords: serving(PartitionOps.deleteRecords, (p, c) => p.deleteRecords(c)),
  offsetForEpoch: serving(PartitionOps.offsetForEpoch, (p, c) => p.offsetForEpoch(c)),
  describeProducers: serving(PartitionOps.describeProducers, (p, ref) => p.describeProducers(ref)),
  readBytes: serving(PartitionOps.readBytes, (p, c) => p.readBytes(c)),
  writeTxnMarkers: serving(PartitionOps.writeTxnMarkers, (p, entries) => p.writeTxnMarkers(entries)),
  describeLogDirs: serving(PartitionOps.describeLogDirs, (p) => p.describeLogDirs()),
  checkpointEntries: serving(PartitionOps.checkpointEntries, (p) => p.checkpointEntries()),
  writeCheckpoints: serving(PartitionOps.writeCheckpoints, (p, c) => p.writeCheckpoints(c)),
  closeLogs: serving(PartitionOps.closeLogs, (p) => p.closeLogs()),
  metrics: serving(PartitionOps.metrics, (p, c) => p.metrics(c)),
  takeLogDirOffline: serving(PartitionOps.takeLogDirOffline, (p, c) => p.takeLogDirOffline(c)),
  alterLogDirs: serving(PartitionOps.alterLogDirs, (p, commands) => p.alterLogDirs(commands)),
  appendAsFollower: serving(PartitionOps.appendAsFollower, (p, entries) => p.appendAsFollower(entries)),
  truncate: serving(PartitionOps.truncate, (p, commands) => p.truncate(commands)),
  replicaPosition: serving(PartitionOps.replicaPosition, (p, commands) => p.replicaPosition(commands)),
  awaitCommit: serving(PartitionOps.awaitCommit, (p, commands) => p.awaitCommit(commands)),
  isrProposals: serving(PartitionOps.isrProposals, (p) => p.isrProposals()),
  isrAnswers: serving(PartitionOps.isrAnswers, (p, answers) => p.isrAnswers(answers)),
};

export const registerOps: RegisterOps = (setup) => {
  const options = parseWorkerOptions(setup.options);
  const partitions = new WorkerPartitions({ workerIndex: setup.workerIndex, workerCount: setup.workerCount, options });
  for (const bind of Object.values(OP_TABLE)) bind(setup, partitions);
  setup.every(LOG_MOVE_INTERVAL_MS, () => partitions.advanceMoves());
  setup.every(options.maintenanceIntervalMs, () => partitions.maintain());
  setup.onClose(() => {
    partitions.closeLogs();
  });
};
