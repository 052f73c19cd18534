/**
 * Leadership and placement administration, the requests behind `sluice leader-election` and
 * `sluice reassign-partitions` (Kafka's ElectLeaders, AlterPartitionReassignments and
 * ListPartitionReassignments). They are the controller's to answer: sent to the broker the
 * metadata names as controller, and once more after fresh metadata if it answers NOT_CONTROLLER.
 * Moves between one broker's log dirs (AlterReplicaLogDirs, and DescribeLogDirs to follow them)
 * are that broker's to answer, and go to it.
 */
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { groupBy } from '@sluice/protocol/common/group-by.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import {
  AlterPartitionReassignmentsRequest,
  AlterPartitionReassignmentsResponse,
  AlterReplicaLogDirsRequest,
  AlterReplicaLogDirsResponse,
  DescribeLogDirsRequest,
  DescribeLogDirsResponse,
  ElectLeadersRequest,
  ElectLeadersResponse,
  ListPartitionReassignmentsRequest,
  ListPartitionReassignmentsResponse,
} from '@sluice/protocol/messages/index.js';
import { throwIfError } from './client-errors.js';
import type { KafkaCluster } from './cluster.js';
import type { KafkaConnection } from './connection.js';
import type { TopicPartition } from '@sluice/protocol/common/topic-partition.js';

export interface PartitionOutcome extends TopicPartition {
  readonly errorCode: number;
  readonly errorMessage: string | null;
}

export interface OngoingReassignment extends TopicPartition {
  readonly replicas: readonly number[];
  readonly adding: readonly number[];
  readonly removing: readonly number[];
}

/** One log dir of a broker as DescribeLogDirs answers it. */
export interface BrokerLogDir {
  readonly path: string;
  /** NONE, or KAFKA_STORAGE_ERROR for an offline dir. */
  readonly errorCode: number;
  readonly replicas: ReadonlyArray<TopicPartition & { readonly size: bigint; readonly offsetLag: bigint; readonly isFuture: boolean }>;
}

/** Where a broker keeps a partition's replica: its log dir, and while it moves, the dir it moves to (null when none). */
export interface ReplicaLogDir extends TopicPartition {
  readonly current: string | null;
  readonly future: string | null;
}

export const ElectionTypes = { PREFERRED: 0, UNCLEAN: 1 } as const;

const TIMEOUT_MS = 30_000;

function byTopic<T extends TopicPartition, R>(items: readonly T[], entry: (item: T) => R): Map<string, R[]> {
  return groupBy(items, (item) => item.topic, entry);
}

export class ReplicaAdminClient {
  constructor(private readonly cluster: KafkaCluster) {}

  /** Runs `send` on the controller's connection, again on the new controller if the first one was not it. */
  private async onController<T>(send: (c: KafkaConnection) => Promise<{ errorCode: number; value: T }>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const metadata = await this.cluster.metadata([]);
      if (metadata.controllerId < 0) throw new KafkaError(ErrorCode.NOT_CONTROLLER, 'the cluster names no controller');
      const { errorCode, value } = await send(await this.cluster.nodeConnection(metadata.controllerId));
      if (errorCode !== ErrorCode.NOT_CONTROLLER || attempt > 0) {
        throwIfError(errorCode, null, 'the controller refused the request');
        return value;
      }
    }
  }

  /** ElectLeaders: `partitions` null elects wherever the election type applies. */
  electLeaders(electionType: number, partitions: readonly TopicPartition[] | null): Promise<PartitionOutcome[]> {
    return this.onController(async (c) => {
      const r = await c.request(ElectLeadersRequest, ElectLeadersResponse, () => ({
        electionType,
        topicPartitions:
          partitions === null ? null : [...byTopic(partitions, (p) => p.partition)].map(([topic, ps]) => ({ topic, partitions: ps })),
        timeoutMs: TIMEOUT_MS,
      }));
      const value = r.replicaElectionResults.flatMap((t) =>
        t.partitionResult.map((p) => ({ topic: t.topic, partition: p.partitionId, errorCode: p.errorCode, errorMessage: p.errorMessage })),
      );
      return { errorCode: r.errorCode, value };
    });
  }

  /** AlterPartitionReassignments: `replicas` null cancels a partition's reassignment in progress. */
  alterReassignments(moves: readonly (TopicPartition & { readonly replicas: readonly number[] | null })[]): Promise<PartitionOutcome[]> {
    return this.onController(async (c) => {
      const r = await c.request(AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponse, () => ({
        timeoutMs: TIMEOUT_MS,
        topics: [...byTopic(moves, (m) => ({ partitionIndex: m.partition, replicas: m.replicas === null ? null : [...m.replicas] }))].map(
          ([name, partitions]) => ({ name, partitions }),
        ),
      }));
      const value = r.responses.flatMap((t) =>
        t.partitions.map((p) => ({ topic: t.name, partition: p.partitionIndex, errorCode: p.errorCode, errorMessage: p.errorMessage })),
      );
      return { errorCode: r.errorCode, value };
    });
  }

  listReassignments(partitions: readonly TopicPartition[] | null = null): Promise<OngoingReassignment[]> {
    return this.onController(async (c) => {
      const r = await c.request(ListPartitionReassignmentsRequest, ListPartitionReassignmentsResponse, () => ({
        timeoutMs: TIMEOUT_MS,
        topics:
          partitions === null
            ? null
            : [...byTopic(partitions, (p) => p.partition)].map(([name, partitionIndexes]) => ({ name, partitionIndexes })),
      }));
      const value = r.topics.flatMap((t) =>
        t.partitions.map((p) => ({
          topic: t.name,
          partition: p.partitionIndex,
          replicas: p.replicas,
          adding: p.addingReplicas,
          removing: p.removingReplicas,
        })),
      );
      return { errorCode: r.errorCode, value };
    });
  }

  /** AlterReplicaLogDirs on broker `brokerId`: each partition's replica there moves to the log dir `path`. */
  async alterReplicaLogDirs(brokerId: number, moves: readonly (TopicPartition & { readonly path: string })[]): Promise<PartitionOutcome[]> {
    const connection = await this.cluster.nodeConnection(brokerId);
    const dirs = groupBy(
      moves,
      (m) => m.path,
      (m) => m,
    );
    const r = await connection.request(AlterReplicaLogDirsRequest, AlterReplicaLogDirsResponse, () => ({
      dirs: [...dirs].map(([path, inDir]) => ({
        path,
        topics: [...byTopic(inDir, (m) => m.partition)].map(([name, partitions]) => ({ name, partitions })),
      })),
    }));
    return r.results.flatMap((t) =>
      t.partitions.map((p) => ({ topic: t.topicName, partition: p.partitionIndex, errorCode: p.errorCode, errorMessage: null })),
    );
  }

  /** DescribeLogDirs on broker `brokerId`: its log dirs and the replicas in them (`partitions` null: all). */
  async logDirs(brokerId: number, partitions: readonly TopicPartition[] | null): Promise<BrokerLogDir[]> {
    const connection = await this.cluster.nodeConnection(brokerId);
    const r = await connection.request(DescribeLogDirsRequest, DescribeLogDirsResponse, () => ({
      topics: partitions === null ? null : [...byTopic(partitions, (p) => p.partition)].map(([topic, ps]) => ({ topic, partitions: ps })),
    }));
    throwIfError(r.errorCode, null, `broker ${brokerId} refused DescribeLogDirs`);
    return r.results.map((dir) => ({
      path: dir.logDir,
      errorCode: dir.errorCode,
      replicas: dir.topics.flatMap((t) =>
        t.partitions.map((p) => ({
          topic: t.name,
          partition: p.partitionIndex,
          size: p.partitionSize,
          offsetLag: p.offsetLag,
          isFuture: p.isFutureKey,
        })),
      ),
    }));
  }

  /** Where broker `brokerId` keeps each of `partitions` (partitions it does not hold are left out). */
  async replicaLogDirs(brokerId: number, partitions: readonly TopicPartition[]): Promise<ReplicaLogDir[]> {
    const found = new Map<string, { topic: string; partition: number; current: string | null; future: string | null }>();
    for (const dir of await this.logDirs(brokerId, partitions)) {
      if (dir.errorCode !== ErrorCode.NONE) continue;
      for (const r of dir.replicas) {
        const key = `${r.topic}-${r.partition}`;
        const entry = found.get(key) ?? { topic: r.topic, partition: r.partition, current: null, future: null };
        if (r.isFuture) entry.future = dir.path;
        else entry.current = dir.path;
        found.set(key, entry);
      }
    }
    return [...found.values()];
  }
}
