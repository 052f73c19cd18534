/**
 * An in-memory `SharePersister` for the share-partition tests: the share coordinator's answers
 * and fencing (state epoch, leader epoch) and its merging of written state batches (later writes
 * replace the offsets they name; offsets below the start offset are dropped), kept per offset.
 */
import { KafkaError } from '../../src/common/kafka-error.js';
import {
  ShareDeliveryState,
  type SharePartitionKey,
  type SharePersister,
  type ShareStateBatch,
  type ShareStateSnapshot,
  type ShareStateSummary,
  type ShareStateWrite,
} from '../../src/coordinator/share/share-state-persister.js';
import { ErrorCode } from '../../src/protocol/errors.js';

interface Stored {
  stateEpoch: number;
  leaderEpoch: number;
  startOffset: bigint;
  offsets: Map<bigint, { deliveryState: ShareDeliveryState; deliveryCount: number }>;
}

export class InMemorySharePersister implements SharePersister {
  private readonly states = new Map<string, Stored>();
  /** Every write, in order, for tests that check what was persisted. */
  readonly writes: Array<{ key: SharePartitionKey; state: ShareStateWrite }> = [];
  /** The code the next write fails with, once. */
  failNextWrite: number | null = null;

  async initialize(key: SharePartitionKey, stateEpoch: number, startOffset: bigint): Promise<void> {
    this.states.set(id(key), { stateEpoch, leaderEpoch: -1, startOffset, offsets: new Map() });
  }

  async read(key: SharePartitionKey, leaderEpoch: number): Promise<ShareStateSnapshot> {
    const s = this.stored(key, leaderEpoch);
    s.leaderEpoch = leaderEpoch;
    return { stateEpoch: s.stateEpoch, startOffset: s.startOffset, leaderEpoch: s.leaderEpoch, stateBatches: batchesOf(s) };
  }

  async write(key: SharePartitionKey, state: ShareStateWrite): Promise<void> {
    if (this.failNextWrite !== null) {
      const code = this.failNextWrite;
      this.failNextWrite = null;
      throw new KafkaError(code, 'the share coordinator refused the write');
    }
    const s = this.stored(key, state.leaderEpoch);
    if (state.stateEpoch !== s.stateEpoch) throw new KafkaError(ErrorCode.FENCED_STATE_EPOCH, `state epoch ${state.stateEpoch} is not ${s.stateEpoch}`);
    this.writes.push({ key, state });
    if (state.startOffset >= 0n) s.startOffset = state.startOffset;
    for (const b of state.stateBatches) {
      for (let o = b.firstOffset; o <= b.lastOffset; o++) s.offsets.set(o, { deliveryState: b.deliveryState, deliveryCount: b.deliveryCount });
    }
    for (const o of s.offsets.keys()) if (o < s.startOffset) s.offsets.delete(o);
  }

  async delete(key: SharePartitionKey): Promise<void> {
    this.states.delete(id(key));
  }

  async readSummary(key: SharePartitionKey, leaderEpoch: number): Promise<ShareStateSummary> {
    const s = this.stored(key, leaderEpoch);
    return { stateEpoch: s.stateEpoch, startOffset: s.startOffset, leaderEpoch: s.leaderEpoch };
  }

  private stored(key: SharePartitionKey, leaderEpoch: number): Stored {
    const s = this.states.get(id(key));
    if (s === undefined) throw new KafkaError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `share-partition ${id(key)} was never initialized`);
    if (leaderEpoch < s.leaderEpoch) throw new KafkaError(ErrorCode.FENCED_LEADER_EPOCH, `leader epoch ${leaderEpoch} is older than ${s.leaderEpoch}`);
    return s;
  }
}

function id(key: SharePartitionKey): string {
  return `${key.groupId}:${key.topicId}:${key.partition}`;
}

function batchesOf(s: Stored): ShareStateBatch[] {
  const out: Array<{ firstOffset: bigint; lastOffset: bigint; deliveryState: ShareDeliveryState; deliveryCount: number }> = [];
  for (const o of [...s.offsets.keys()].sort((a, b) => (a < b ? -1 : 1))) {
    const v = s.offsets.get(o)!;
    const last = out[out.length - 1];
    if (last !== undefined && last.lastOffset + 1n === o && last.deliveryState === v.deliveryState && last.deliveryCount === v.deliveryCount) last.lastOffset = o;
    else out.push({ firstOffset: o, lastOffset: o, ...v });
  }
  return out;
}
