/**
 * The groups of one type (KIP-848 consumer groups, share groups) in one coordinator, changed only
 * by `apply`: live operations apply the changes they write and replay applies the changes it reads,
 * so a reloaded coordinator holds exactly what the log holds. Each type says how a change applies
 * (`applyTo`) and how it is written (`encode`).
 */
import type { CoordinatorRecord } from './records.js';

export interface GroupChange {
  readonly groupId: string;
  /** Null for a tombstone. */
  readonly value: unknown;
}

export abstract class GroupStore<G, C extends GroupChange> {
  private readonly groups = new Map<string, G>();

  get(groupId: string): G | undefined {
    return this.groups.get(groupId);
  }

  has(groupId: string): boolean {
    return this.groups.has(groupId);
  }

  all(): IterableIterator<G> {
    return this.groups.values();
  }

  clear(): void {
    this.groups.clear();
  }

  /** Applies a live change and adds its record to `records`. */
  write(change: C, records: CoordinatorRecord[]): void {
    this.apply(change);
    records.push(this.encode(change));
  }

  /** Applies one change, live or replayed: a tombstone for a group that is not there changes nothing. */
  apply(change: C): void {
    const { groupId } = change;
    if (change.value === null && !this.groups.has(groupId)) return;
    let group = this.groups.get(groupId);
    if (group === undefined) this.groups.set(groupId, (group = this.create(groupId)));
    if (this.applyTo(group, change) === 'deleted') this.groups.delete(groupId);
  }

  protected abstract create(groupId: string): G;
  protected abstract encode(change: C): CoordinatorRecord;
  /** Applies `change` to its group; 'deleted' when it was the group's own tombstone. */
  protected abstract applyTo(group: G, change: C): 'deleted' | void;
}
