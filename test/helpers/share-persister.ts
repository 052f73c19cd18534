/**
 * The `SharePersister` the unit tests of share groups and share partitions run against: the real
 * one (`ShareStatePersister` → `ShareCoordinatorService` → the `ShareCoordinator` shard), with
 * `__share_group_state` kept by the real `InternalTopicLog` on in-memory partitions — so the
 * answers, fencing (state and leader epochs) and merging of written state batches are the share
 * coordinator's own. On top, what the tests watch and break: every call and every accepted write
 * in order, a write that fails once with a code, and share-partitions whose every call fails.
 */
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { Logger } from '../../src/common/logger.js';
import { InternalTopicLog } from '../../src/coordinator/runtime/coordinator-log.js';
import type { ShareSnapshot } from '../../src/coordinator/share/records.js';
import { ShareCoordinator, type TopicPartitionCount } from '../../src/coordinator/share/share-coordinator.js';
import { ShareCoordinatorService } from '../../src/coordinator/share/share-coordinator-service.js';
import { ShareStatePersister } from '../../src/coordinator/share/share-state-routing.js';
import type {
  SharePartitionKey,
  SharePersister,
  ShareStateSnapshot,
  ShareStateSummary,
  ShareStateWrite,
} from '../../src/coordinator/share/share-state-persister.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { SHARE_GROUP_STATE_TOPIC } from '@sluice/protocol/internal-topics.js';
import { MemoryPartitions } from '../unit/coordinator/runtime/memory-partitions.js';

/** `groupId:topicId:partition`, the share coordinator's own key text. */
export function keyText(k: SharePartitionKey): string {
  return `${k.groupId}:${k.topicId}:${k.partition}`;
}

export interface PersisterCall {
  readonly op: 'initialize' | 'read' | 'write' | 'delete' | 'readSummary';
  readonly key: string;
  /** The start offset `initialize` was asked for. */
  readonly startOffset?: bigint;
}

/** The tests' topics are their callers' business: the coordinator takes every topic to have every partition. */
const EVERY_PARTITION: TopicPartitionCount = () => 0x7fffffff;

export class TestSharePersister implements SharePersister {
  private readonly partitions = new MemoryPartitions();
  private readonly log = new InternalTopicLog({ name: SHARE_GROUP_STATE_TOPIC, numPartitions: 1, configs: new Map() }, this.partitions);
  private readonly persister: ShareStatePersister;
  /** Every call, failed ones too, in order. */
  readonly calls: PersisterCall[] = [];
  /** Every write the share coordinator accepted, in order. */
  readonly writes: Array<{ key: SharePartitionKey; state: ShareStateWrite }> = [];
  private readonly failing = new Map<string, number>();
  private nextWriteFailure: number | null = null;

  constructor(private readonly partitionCount: TopicPartitionCount = EVERY_PARTITION) {
    const coordinator = new ShareCoordinatorService({
      log: this.log,
      numPartitions: 1,
      config: {},
      leads: () => true,
      partitionCount,
      logger: new Logger('test-share-persister'),
      deleteRecords: async () => ErrorCode.NONE,
      topicIds: () => [],
    });
    this.persister = new ShareStatePersister({ nodeId: 0, local: coordinator, leaderOf: () => 0, peers: null });
  }

  /** The next write fails with `code` (once), as a share coordinator refusing it would. */
  failNextWrite(code: number): void {
    this.nextWriteFailure = code;
  }

  /** Every call for `key` fails with `code` until `recover`, as an unavailable coordinator would. */
  failEveryCall(key: SharePartitionKey, code: number): void {
    this.failing.set(keyText(key), code);
  }

  recover(): void {
    this.failing.clear();
  }

  /** The share-partition's state as `__share_group_state` holds it: its log replayed into a fresh shard. */
  async stored(key: SharePartitionKey): Promise<ShareSnapshot | undefined> {
    const shard = new ShareCoordinator(this.partitionCount);
    await this.log.replay(0, { record: (k, v) => shard.replay(k, v), marker: () => undefined });
    return shard.state(key);
  }

  async initialize(key: SharePartitionKey, stateEpoch: number, startOffset: bigint): Promise<void> {
    this.called({ op: 'initialize', key: keyText(key), startOffset });
    await this.persister.initialize(key, stateEpoch, startOffset);
  }

  async read(key: SharePartitionKey, leaderEpoch: number): Promise<ShareStateSnapshot> {
    this.called({ op: 'read', key: keyText(key) });
    return this.persister.read(key, leaderEpoch);
  }

  async write(key: SharePartitionKey, state: ShareStateWrite): Promise<void> {
    this.called({ op: 'write', key: keyText(key) });
    if (this.nextWriteFailure !== null) {
      const code = this.nextWriteFailure;
      this.nextWriteFailure = null;
      throw new KafkaError(code, 'the share coordinator refused the write');
    }
    await this.persister.write(key, state);
    this.writes.push({ key, state });
  }

  async delete(key: SharePartitionKey): Promise<void> {
    this.called({ op: 'delete', key: keyText(key) });
    await this.persister.delete(key);
  }

  async readSummary(key: SharePartitionKey, leaderEpoch: number): Promise<ShareStateSummary> {
    this.called({ op: 'readSummary', key: keyText(key) });
    return this.persister.readSummary(key, leaderEpoch);
  }

  private called(call: PersisterCall): void {
    this.calls.push(call);
    const code = this.failing.get(call.key);
    if (code !== undefined) throw new KafkaError(code, `share-partition ${call.key} unavailable`);
  }
}
