/**
 * A `SharePersister` in memory, for testing the parts built against the port before the share
 * coordinator is wired in. It keeps what each call stores and answers as the share coordinator
 * would for a share-partition it does not know (UNKNOWN_TOPIC_OR_PARTITION). `failing` makes every
 * call for those share-partitions fail with the given code, as an unavailable coordinator would.
 */
import { KafkaError } from '../../src/common/kafka-error.js';
import { ErrorCode } from '../../src/protocol/errors.js';
import type {
  SharePartitionKey,
  SharePersister,
  ShareStateSnapshot,
  ShareStateSummary,
  ShareStateWrite,
} from '../../src/coordinator/share/share-state-persister.js';

export function keyText(k: SharePartitionKey): string {
  return `${k.groupId}:${k.topicId}:${k.partition}`;
}

export class MemorySharePersister implements SharePersister {
  readonly states = new Map<string, ShareStateSnapshot>();
  /** Share-partition key text → the error code every call for it fails with. */
  readonly failing = new Map<string, number>();
  readonly calls: Array<{ op: string; key: string; startOffset?: bigint }> = [];

  async initialize(key: SharePartitionKey, stateEpoch: number, startOffset: bigint): Promise<void> {
    this.check('initialize', key, startOffset);
    this.states.set(keyText(key), { stateEpoch, startOffset, leaderEpoch: -1, stateBatches: [] });
  }

  async read(key: SharePartitionKey, leaderEpoch: number): Promise<ShareStateSnapshot> {
    const state = this.existing('read', key);
    this.states.set(keyText(key), { ...state, leaderEpoch });
    return state;
  }

  async write(key: SharePartitionKey, write: ShareStateWrite): Promise<void> {
    const state = this.existing('write', key);
    this.states.set(keyText(key), { stateEpoch: write.stateEpoch, leaderEpoch: write.leaderEpoch, startOffset: write.startOffset === -1n ? state.startOffset : write.startOffset, stateBatches: write.stateBatches });
  }

  async delete(key: SharePartitionKey): Promise<void> {
    this.check('delete', key);
    this.states.delete(keyText(key));
  }

  async readSummary(key: SharePartitionKey): Promise<ShareStateSummary> {
    const { stateEpoch, startOffset, leaderEpoch } = this.existing('readSummary', key);
    return { stateEpoch, startOffset, leaderEpoch };
  }

  private check(op: string, key: SharePartitionKey, startOffset?: bigint): void {
    this.calls.push({ op, key: keyText(key), ...(startOffset === undefined ? {} : { startOffset }) });
    const code = this.failing.get(keyText(key));
    if (code !== undefined) throw new KafkaError(code, `share-partition ${keyText(key)} unavailable`);
  }

  private existing(op: string, key: SharePartitionKey): ShareStateSnapshot {
    this.check(op, key);
    const state = this.states.get(keyText(key));
    if (state === undefined) throw new KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `share-partition ${keyText(key)} was never initialized`);
    return state;
  }
}
