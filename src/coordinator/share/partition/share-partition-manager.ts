/**
 * The share partitions this broker leads, by (group, topic id, partition): each is created on the
 * first ShareFetch that names it and loads its state from the share coordinator; it is dropped
 * (its locks stopped) when this broker stops leading the partition or leads it at a new epoch,
 * whose share partitions start again from the persisted state.
 */
import type { SharePartitionKey, SharePersister } from '../share-state-persister.js';
import type { SharePartitionConfig, SharePartitionConfigSource } from './share-partition-config.js';
import { eventLoopTimers, SharePartition, type LockTimers, type StartOffsetResolver } from './share-partition.js';
import { noDeadLetterQueue, type DeadLetterQueue } from './dead-letter.js';

function keyOf(k: SharePartitionKey): string {
  return `${k.groupId}\u0000${k.topicId}\u0000${k.partition}`;
}

export class SharePartitionManager {
  private readonly partitions = new Map<string, Promise<SharePartition>>();

  constructor(
    private readonly persister: SharePersister,
    private readonly configs: SharePartitionConfigSource,
    private readonly timers: LockTimers = eventLoopTimers,
    /** Told when a share partition's records may have become available (to wake the ShareFetches waiting on it). */
    private readonly recordsAvailable: (key: SharePartitionKey) => void = () => undefined,
    /** Where the groups' given-up records go (KIP-1191) before they are archived. */
    private readonly deadLetters: DeadLetterQueue = noDeadLetterQueue,
  ) {}

  /** The effective share settings of `groupId`. */
  config(groupId: string): SharePartitionConfig {
    return this.configs(groupId);
  }

  /**
   * The share partition of `key` at `leaderEpoch`, initialized from the persisted state (an unset
   * start offset resolved by `resolveStartOffset`). A failed initialization throws its KafkaError
   * and is tried again by the next fetch.
   */
  async open(key: SharePartitionKey, leaderEpoch: number, resolveStartOffset: StartOffsetResolver): Promise<SharePartition> {
    const id = keyOf(key);
    const existing = this.partitions.get(id);
    if (existing !== undefined) {
      const sp = await existing.catch(() => null);
      if (sp !== null && sp.leaderEpoch === leaderEpoch) return sp;
      if (this.partitions.get(id) === existing) this.drop(id, sp);
    }
    const sp = new SharePartition(
      key,
      leaderEpoch,
      this.persister,
      () => this.configs(key.groupId),
      this.timers,
      () => this.recordsAvailable(key),
      this.deadLetters,
    );
    const opening = sp.initialize(resolveStartOffset).then(() => sp);
    this.partitions.set(id, opening);
    try {
      return await opening;
    } catch (err) {
      if (this.partitions.get(id) === opening) this.partitions.delete(id);
      throw err;
    }
  }

  /** The open share partition of `key`, if any (acknowledgements never open one). */
  async find(key: SharePartitionKey): Promise<SharePartition | undefined> {
    return (await this.partitions.get(keyOf(key))?.catch(() => undefined)) ?? undefined;
  }

  /** The partition's leadership changed: drops its share partitions unless this broker still leads it at `leaderEpoch` (null: not at all). */
  async leadershipChanged(topicId: string, partition: number, leaderEpoch: number | null): Promise<void> {
    for (const [id, opening] of [...this.partitions]) {
      const sp = await opening.catch(() => null);
      if (sp === null || sp.key.topicId !== topicId || sp.key.partition !== partition || sp.leaderEpoch === leaderEpoch) continue;
      if (this.partitions.get(id) === opening) this.drop(id, sp);
    }
  }

  /** Releases every record `memberId` of `groupId` holds, in every share partition of the group. */
  async releaseMember(groupId: string, memberId: string): Promise<void> {
    const all = await Promise.all([...this.partitions.values()].map((p) => p.catch(() => null)));
    await Promise.all(
      all
        .filter((sp): sp is SharePartition => sp !== null && sp.key.groupId === groupId)
        .map((sp) => sp.releaseMember(memberId).catch(() => undefined)),
    );
  }

  /** Stops every lock timer (broker shutdown). */
  async close(): Promise<void> {
    const all = await Promise.all([...this.partitions.values()].map((p) => p.catch(() => null)));
    this.partitions.clear();
    for (const sp of all) sp?.close();
  }

  private drop(id: string, sp: SharePartition | null): void {
    this.partitions.delete(id);
    sp?.close();
  }
}
