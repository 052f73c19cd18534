/**
 * One fault run, end to end: a ZooKeeper and a 3-broker cluster behind fault proxies; a topic
 * with replication factor 3 and min.insync.replicas 2; the Java and (when installed) librdkafka
 * workloads writing, consuming and committing; `faults` faults chosen by the seeded nemesis, each
 * healed and the cluster whole again before the next; then the clients stop, every partition is
 * read from the beginning with a fresh consumer, and the checker judges the history.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CreateTopicsRequest, CreateTopicsResponse } from '@sluice/protocol/messages/index.js';
import { CONFLUENT_JS_SKIP } from '../../test/helpers/confluent-js.js';
import { runJava } from '../../test/helpers/interop.js';
import { wireCall } from '../../test/helpers/wire-call.js';
import { KAFKA_VERSION, repoRoot } from '../kafka/kafka-release.js';
import { check, type CheckResult } from './checker.js';
import { FaultCluster, whole } from './fault-cluster.js';
import type { FaultEvent, History, StoredRecord } from './history.js';
import { nemesis } from './nemesis.js';
import { Prng } from './prng.js';
import { Recorder } from './recorder.js';
import { startJavaWorkload } from './java-workload.js';
import { startRdkafkaWorkload } from './rdkafka-workload.js';
import type { Workload, WorkloadSettings } from './workload.js';

export interface FaultRunOptions {
  readonly faults: number;
  readonly seed: number;
  readonly partitions?: number;
  readonly intervalMs?: number;
  readonly sessionTimeoutMs?: number;
  readonly replicaLagMs?: number;
  /** How long the cluster may take to be whole again after a fault before the run gives up. */
  readonly recoveryTimeoutMs?: number;
  /** Progress lines. */
  readonly log?: (line: string) => void;
}

export interface FaultRunResult {
  readonly seed: number;
  readonly settings: Readonly<Record<string, string | number>>;
  readonly versions: Readonly<Record<string, string>>;
  readonly clients: readonly string[];
  /** Fault kinds and client libraries left out, with why. */
  readonly skipped: readonly string[];
  /** What went wrong with the run itself (a client that died, a cluster that never healed). */
  readonly problems: readonly string[];
  readonly faults: readonly FaultEvent[];
  readonly check: CheckResult;
  readonly durationMs: number;
  /** The run's folder (broker and client logs, the full history), kept when something was found. */
  readonly dir: string;
}

const TOPIC = 'faults';
const BROKERS = 3;
const WARMUP_TIMEOUT_MS = 90_000;
const SETTLE_MS = 2_000;

export async function runFaults(options: FaultRunOptions): Promise<FaultRunResult> {
  const log = options.log ?? ((): void => undefined);
  const started = Date.now();
  const partitions = options.partitions ?? 4;
  const intervalMs = options.intervalMs ?? 20;
  const sessionTimeoutMs = options.sessionTimeoutMs ?? 3_000;
  const replicaLagMs = options.replicaLagMs ?? 2_000;
  const recoveryTimeoutMs = options.recoveryTimeoutMs ?? 60_000;
  const settings = {
    'zookeeper.session.timeout.ms': String(sessionTimeoutMs),
    'replica.lag.time.max.ms': String(replicaLagMs),
    'offsets.topic.replication.factor': '3',
    'offsets.topic.num.partitions': '3',
    'min.insync.replicas': '2',
    'unclean.leader.election.enable': 'false',
    'auto.create.topics.enable': 'false',
    'group.initial.rebalance.delay.ms': '0',
    'num.partition.workers': '1',
  };
  const dir = mkdtempSync(join(tmpdir(), 'sluice-faults-'));
  const problems: string[] = [];
  const problem = (line: string): void => {
    problems.push(line);
    log(`problem: ${line}`);
  };
  const prng = new Prng(options.seed);
  log(`seed ${options.seed}, ${options.faults} faults, run folder ${dir}`);

  const diskBroker = BROKERS;
  const cluster = await FaultCluster.start({ size: BROKERS, dir, settings, diskBroker });
  const zookeeperVersion = await cluster.zooKeeperVersion();
  const recorder = new Recorder();
  const workloads: Workload[] = [];
  const faults: FaultEvent[] = [];
  const skipped: string[] = [];
  let stored: StoredRecord[] = [];
  let endMs = Date.now();
  try {
    const created = await wireCall(`127.0.0.1:${cluster.broker(1).port}`, CreateTopicsRequest, CreateTopicsResponse, 7, {
      topics: [
        {
          name: TOPIC,
          numPartitions: partitions,
          replicationFactor: BROKERS,
          assignments: [],
          configs: [{ name: 'min.insync.replicas', value: '2' }],
        },
      ],
      timeoutMs: 30_000,
      validateOnly: false,
    });
    if (created.topics[0]!.errorCode !== 0) throw new Error(`creating ${TOPIC} failed with error ${created.topics[0]!.errorCode}`);
    await cluster.waitFor(`${TOPIC} fully replicated`, (m) => whole(BROKERS)(m) && m.topics.some((t) => t.name === TOPIC), 60_000);

    const workload = (client: string): WorkloadSettings => ({
      bootstrap: cluster.bootstrap(),
      topic: TOPIC,
      partitions,
      intervalMs,
      logFile: join(dir, 'logs', `${client}.log`),
    });
    workloads.push(startJavaWorkload(workload('java'), recorder, 'j', 'fault-java', problem));
    if (CONFLUENT_JS_SKIP === undefined)
      workloads.push(await startRdkafkaWorkload(workload('librdkafka'), recorder, 'r', 'fault-librdkafka', problem));
    else skipped.push(`librdkafka: ${CONFLUENT_JS_SKIP}; the Java client writes alone`);
    await waitUntil(
      'every writer acknowledged',
      () => workloads.every((w) => (recorder.ackedBy.get(w.writer) ?? 0) > 0),
      WARMUP_TIMEOUT_MS,
    );
    // The consumers' groups create __consumer_offsets; it must be whole before the faults start too.
    await cluster.waitFor(
      'the cluster whole with __consumer_offsets',
      (m) => whole(BROKERS)(m) && m.topics.some((t) => t.name === '__consumer_offsets'),
      60_000,
    );

    const n = nemesis(cluster, TOPIC, prng, { sessionTimeoutMs, replicaLagMs }, diskBroker);
    for (const [kind, why] of n.skipped) skipped.push(`${kind}: ${why}`);
    for (let i = 0; i < options.faults; i++) {
      let fault: Omit<FaultEvent, 'recoveredMs'>;
      try {
        fault = await n.inject();
      } catch (err) {
        problem(`injecting or healing fault ${i + 1} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
        await cluster.healAll();
        break;
      }
      let recoveredMs: number | null = null;
      try {
        await cluster.waitFor('the cluster whole again', whole(BROKERS), recoveryTimeoutMs);
        recoveredMs = Date.now();
      } catch (err) {
        problem(`fault ${i} (${fault.kind} ${fault.target}): ${err instanceof Error ? err.message : String(err)}`);
      }
      faults.push({ ...fault, recoveredMs });
      log(
        `fault ${i + 1}/${options.faults}: ${fault.kind} ${fault.target}, held ${fault.healedMs - fault.startMs} ms, whole ${recoveredMs === null ? 'never' : `${recoveredMs - fault.healedMs} ms`} after healing`,
      );
      if (recoveredMs === null) break;
      await sleep(prng.int(500, 1_500));
    }
    await sleep(SETTLE_MS);
  } finally {
    endMs = Date.now();
    for (const w of workloads) {
      try {
        await w.stop();
      } catch (err) {
        problem(`stopping the ${w.client} workload: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    try {
      stored = await readAll(cluster.bootstrap(), partitions);
    } catch (err) {
      problem(`the final read failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    await cluster.stop();
  }
  const history: History = {
    partitions,
    writes: recorder.history(),
    consumed: recorder.consumed,
    commits: recorder.commits,
    fetchedOffsets: recorder.fetchedOffsets,
    faults,
    stored,
    endMs,
  };
  const result = check(history);
  const found = Object.values(result.counts).some((c) => c > 0) || problems.length > 0 || stored.length === 0;
  writeFileSync(join(dir, 'history.json'), JSON.stringify(history));
  if (!found) rmSync(dir, { recursive: true, force: true });
  return {
    seed: options.seed,
    settings: {
      ...settings,
      brokers: BROKERS,
      partitions,
      'topic.replication.factor': BROKERS,
      'topic.min.insync.replicas': 2,
      'writer.interval.ms': intervalMs,
    },
    versions: versions(zookeeperVersion),
    clients: workloads.map((w) => w.client),
    skipped,
    problems,
    faults,
    check: result,
    durationMs: Date.now() - started,
    dir,
  };
}

async function waitUntil(what: string, done: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}`);
    await sleep(100);
  }
}

/** Every partition from the beginning to the high watermark, with a fresh Java consumer. */
async function readAll(bootstrap: string, partitions: number): Promise<StoredRecord[]> {
  const lines = await runJava('consume', bootstrap, { topic: TOPIC, partitions });
  return lines
    .filter((l) => l['type'] === 'record')
    .map((l) => ({
      partition: Number(l['partition']),
      offset: Number(l['offset']),
      value: Buffer.from(String(l['value']), 'hex').toString('utf8'),
    }));
}

function versions(zookeeper: string): Record<string, string> {
  const pkg = JSON.parse(readFileSync(join(repoRoot(), 'package.json'), 'utf8')) as {
    version: string;
    optionalDependencies?: Record<string, string>;
  };
  return {
    sluice: pkg.version,
    node: process.version,
    'kafka-clients (Java)': KAFKA_VERSION,
    '@confluentinc/kafka-javascript': pkg.optionalDependencies?.['@confluentinc/kafka-javascript'] ?? 'absent',
    zookeeper,
  };
}
