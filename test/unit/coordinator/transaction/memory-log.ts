/** An in-memory `__transaction_state` for the coordinator's and the handlers' tests. */
import type { CoordinatorLog, CoordinatorRecord, ReplaySink } from '../../../../src/coordinator/runtime/coordinator-log.js';
import { ErrorCode } from '../../../../src/protocol/errors.js';

/** An in-memory __transaction_state; a replay can be held until the test releases it. */
export class MemoryLog implements CoordinatorLog {
  created = false;
  readonly partitions = new Map<number, CoordinatorRecord[]>();
  holdReplay: Promise<void> | null = null;
  /** How many of the next appends fail (and are not kept). */
  failAppends = 0;

  exists(): boolean {
    return this.created;
  }
  async ensureTopic(): Promise<void> {
    this.created = true;
  }
  async append(partition: number, records: readonly CoordinatorRecord[]): Promise<number> {
    if (this.failAppends > 0) {
      this.failAppends--;
      return ErrorCode.NOT_ENOUGH_REPLICAS;
    }
    const list = this.partitions.get(partition) ?? [];
    list.push(...records);
    this.partitions.set(partition, list);
    return ErrorCode.NONE;
  }
  async appendMarker(): Promise<number> {
    throw new Error('__transaction_state holds no transaction markers');
  }
  async replay(partition: number, sink: ReplaySink): Promise<number> {
    if (this.holdReplay !== null) await this.holdReplay;
    for (const r of this.partitions.get(partition) ?? []) sink.record(r.key, r.value, null);
    return ErrorCode.NONE;
  }
}

