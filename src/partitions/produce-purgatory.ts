/**
 * Where acks=all produces wait for their records to be committed (main thread; the main-thread
 * half of Kafka's `DelayedProduce`). The decisions are the leaders': each acks=all append carries
 * a wait id registered here (`register`, before the append is sent), the partition's worker holds
 * the wait when the append leaves the high watermark below its records, and answers it where the
 * high watermark, the ISR or the leadership changes — in the reply of whatever op changed it (an
 * append, a follower's fetch, the controller's state, an ISR answer), which `PartitionService`
 * hands here (`complete`). An answer that comes before its produce parks (`wait`) is kept for it,
 * so registering first loses none. A partition still waiting at the request's timeout answers
 * REQUEST_TIMED_OUT, as in Kafka (its leader drops the wait unanswered once it expires); the
 * request is answered when all its partitions are. A lost worker's waits answer
 * KAFKA_STORAGE_ERROR (`failWhere`).
 *
 * On a single broker the high watermark reaches the log end with each append, so nothing parks.
 */
import { NO_OFFSET, type Offset } from '@sluice/protocol/common/offsets.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import type { CompletedAck } from './partition-protocol.js';

/** The largest wait id: ids go on the rings as uint32, and wrap. */
const MAX_ID = 0xffffffff;

interface ParkedProduce {
  /** Each partition's answer; REQUEST_TIMED_OUT until it is done. */
  readonly codes: number[];
  pending: number;
  readonly resolve: (codes: number[]) => void;
  timer: NodeJS.Timeout | undefined;
  readonly waits: Wait[];
}

interface Wait {
  readonly id: number;
  readonly topic: string;
  readonly partition: number;
  /** Its answer when it came before the produce parked; null until then. */
  early: number | null;
  /** The produce parked on it, and its place there; null until `wait`. */
  produce: ParkedProduce | null;
  index: number;
}

export class ProducePurgatory {
  private readonly waits = new Map<number, Wait>();
  private lastId = 0;
  private closed = false;

  /** Waits registered and not answered yet (for metrics and tests). */
  get waiting(): number {
    return this.waits.size;
  }

  /** A wait id for an acks=all append to `partition` of `topic`, to send with it: its answer is kept from now on. */
  register(topic: string, partition: number): number {
    let id = this.lastId;
    do id = id === MAX_ID ? 1 : id + 1;
    while (this.waits.has(id));
    this.lastId = id;
    this.waits.set(id, { id, topic, partition, early: this.closed ? ErrorCode.REQUEST_TIMED_OUT : null, produce: null, index: 0 });
    return id;
  }

  /** The append of `id` holds no wait (it failed, or it was committed at once): forget it. */
  cancel(id: number): void {
    this.waits.delete(id);
  }

  /**
   * Parks the registered waits `ids` (one request's) until each is answered or `timeoutMs`
   * passes. Resolves with one error code per wait, in order: NONE,
   * NOT_ENOUGH_REPLICAS_AFTER_APPEND, NOT_LEADER_OR_FOLLOWER, another partition error, or
   * REQUEST_TIMED_OUT.
   */
  wait(ids: readonly number[], timeoutMs: number): Promise<number[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return new Promise((resolve) => {
      const produce: ParkedProduce = {
        codes: ids.map(() => ErrorCode.REQUEST_TIMED_OUT),
        pending: 0,
        resolve,
        timer: undefined,
        waits: [],
      };
      ids.forEach((id, index) => {
        const wait = this.waits.get(id);
        if (wait === undefined) throw new Error(`acks=all wait ${id} is not registered`);
        if (wait.early !== null) {
          produce.codes[index] = wait.early;
          this.waits.delete(id);
          return;
        }
        wait.produce = produce;
        wait.index = index;
        produce.waits.push(wait);
        produce.pending++;
      });
      if (produce.pending === 0) resolve(produce.codes);
      else produce.timer = setTimeout(() => this.expire(produce), Math.max(0, timeoutMs));
    });
  }

  /**
   * For appends answered with `replies` (in the order of `ids`, undefined where the append carried
   * no wait): parks those whose reply asks to wait (no error, a required offset), cancels the
   * other registrations, and resolves with each entry's answer — null where there was nothing to
   * wait for.
   */
  async settle(
    ids: readonly (number | undefined)[],
    replies: readonly { readonly errorCode: number; readonly requiredOffset: Offset }[],
    timeoutMs: number,
  ): Promise<(number | null)[]> {
    const parked: number[] = [];
    const positions: number[] = [];
    ids.forEach((id, i) => {
      if (id === undefined) return;
      const reply = replies[i]!;
      if (reply.errorCode !== ErrorCode.NONE || reply.requiredOffset === NO_OFFSET) return this.cancel(id);
      parked.push(id);
      positions.push(i);
    });
    const out = ids.map((): number | null => null);
    if (parked.length === 0) return out;
    const codes = await this.wait(parked, timeoutMs);
    codes.forEach((code, n) => (out[positions[n]!] = code));
    return out;
  }

  /** The leaders' answers: each completes its wait, parked or not yet; an unknown id (timed out, cancelled) is ignored. */
  complete(completed: readonly CompletedAck[]): void {
    for (const { id, errorCode } of completed) {
      const wait = this.waits.get(id);
      if (wait !== undefined) this.answer(wait, errorCode);
    }
  }

  /** Answers every wait on the partitions `owns` names with `errorCode` (their worker is gone). */
  failWhere(owns: (topic: string, partition: number) => boolean, errorCode: number): void {
    for (const wait of [...this.waits.values()]) if (owns(wait.topic, wait.partition)) this.answer(wait, errorCode);
  }

  /** Shutdown: every waiting produce answers now, its waiting partitions REQUEST_TIMED_OUT, and so does any parked later. */
  close(): void {
    this.closed = true;
    const produces = new Set<ParkedProduce>();
    for (const wait of this.waits.values()) {
      if (wait.produce === null) wait.early = ErrorCode.REQUEST_TIMED_OUT;
      else produces.add(wait.produce);
    }
    for (const produce of produces) this.expire(produce);
  }

  private answer(wait: Wait, errorCode: number): void {
    const produce = wait.produce;
    if (produce === null) {
      wait.early ??= errorCode;
      return;
    }
    this.waits.delete(wait.id);
    produce.codes[wait.index] = errorCode;
    if (--produce.pending === 0) {
      clearTimeout(produce.timer);
      produce.resolve(produce.codes);
    }
  }

  private expire(produce: ParkedProduce): void {
    for (const wait of produce.waits) if (this.waits.get(wait.id) === wait) this.waits.delete(wait.id);
    produce.pending = 0;
    clearTimeout(produce.timer);
    produce.resolve(produce.codes);
  }
}
