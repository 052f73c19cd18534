/**
 * The partition state machine of the ZooKeeper controller (Kafka's `PartitionStateMachine` and the
 * requests it batches): new partitions get their first state, offline partitions a new leader
 * (from the ISR, the eligible leader replicas, or — where the topic allows it — any live replica),
 * replicas on departed brokers leave the ISR, and every change is written to its partition state
 * znode under the controller epoch's guard before the brokers are told: LeaderAndIsr to the
 * replicas, UpdateMetadata to every live broker, StopReplica where a replica goes. Runs inside the
 * controller's events, one at a time; only the controller's parts call it.
 */
import type { Logger } from '../../common/logger.js';
import { type TopicPartition, topicPartitionKey } from '@sluice/protocol/common/topic-partition.js';
import { ControllerMovedError, ZkBadVersionError, type LeaderAndIsrZk } from '../../zk/index.js';
import type { ControllerChannel } from './controller-channel.js';
import type { ControllerContext, PartitionLeadership } from './controller-context.js';
import { leaderAndIsr, stopReplica, updateMetadata } from './controller-requests.js';
import type { ControllerSession } from './controller-session.js';
import { eligibleAfterIsrChange, offlineElection, type ElectionKind } from './leader-election.js';

/** Retries of a partition state write whose znode version moved meanwhile (an AlterPartition raced it). */
const WRITE_ATTEMPTS = 5;

export interface PartitionStateSettings {
  /** This broker's value of a broker config key (dynamic, static or default): what a topic without an override inherits. */
  readonly brokerSetting: (key: string) => string | null;
  /** Counts an unclean leader election (Kafka's UncleanLeaderElectionsPerSec). */
  readonly onUncleanElection: () => void;
}

/** Replicas a broker answered KAFKA_STORAGE_ERROR for in its LeaderAndIsr response, from its registration at `brokerEpoch`. */
export type ReplicasOffline = (brokerId: number, brokerEpoch: bigint, partitions: TopicPartition[]) => void;

export class PartitionStateMachine {
  constructor(
    private readonly ctx: ControllerContext,
    private readonly session: ControllerSession,
    private readonly channel: ControllerChannel,
    private readonly settings: PartitionStateSettings,
    private readonly onReplicasOffline: ReplicasOffline,
    private readonly log: Logger,
  ) {}

  leaderAlive(p: TopicPartition): boolean {
    const l = this.ctx.leadership(p.topic, p.partition);
    return l !== undefined && l.leader >= 0 && this.ctx.isLive(l.leader);
  }

  hostedBy(brokerId: number, partitions: readonly TopicPartition[]): TopicPartition[] {
    return partitions.filter((p) => this.ctx.replicas(p.topic, p.partition).includes(brokerId));
  }

  async initializePartitions(partitions: readonly TopicPartition[]): Promise<TopicPartition[]> {
    const entries: { topic: string; partition: number; state: LeaderAndIsrZk }[] = [];
    for (const p of partitions) {
      const live = this.ctx.replicas(p.topic, p.partition).filter(this.ctx.isLive);
      if (live.length === 0) continue;
      entries.push({ ...p, state: { leader: live[0]!, leaderEpoch: 0, isr: live, controllerEpoch: this.session.requireGuard().epoch } });
    }
    if (entries.length === 0) return [];
    try {
      await this.session.zk.createPartitionStates(this.session.requireGuard(), entries);
      for (const e of entries) this.ctx.leaderships.set(topicPartitionKey(e.topic, e.partition), { ...e.state, zkVersion: 0 });
    } catch (err) {
      if (err instanceof ControllerMovedError) throw err;
      // Some already have a state (written by an earlier controller): read what is there.
      for (const e of entries) {
        const stored = await this.session.zk.getPartitionState(e.topic, e.partition);
        if (stored !== null)
          this.ctx.leaderships.set(topicPartitionKey(e.topic, e.partition), { ...stored.state, zkVersion: stored.zkVersion });
      }
    }
    return entries.filter((e) => this.ctx.leadership(e.topic, e.partition) !== undefined);
  }

  /**
   * Offline partitions get the first live in-sync replica as leader, at the next leader epoch;
   * else an eligible leader replica; else, where the topic's `unclean.leader.election.enable`
   * (its override, else this broker's value — read only now, as Kafka does) allows it, any live
   * replica.
   */
  async electOfflineLeaders(partitions: readonly TopicPartition[], failed: ReadonlySet<number>): Promise<TopicPartition[]> {
    const changed: TopicPartition[] = [];
    for (const p of partitions) {
      const l = this.ctx.leadership(p.topic, p.partition);
      if (l === undefined) continue;
      // A replica on a failed log dir of a live broker has nothing to serve: never a leader.
      const candidate = (id: number): boolean =>
        this.ctx.isLive(id) && !failed.has(id) && !this.ctx.isOnOfflineDir(id, p.topic, p.partition);
      const replicas = this.ctx.replicas(p.topic, p.partition);
      const eligible = this.ctx.eligible(p.topic, p.partition);
      const election =
        offlineElection(replicas, l.isr, eligible, candidate, false) ??
        ((await this.uncleanElectionEnabled(p.topic)) ? offlineElection(replicas, l.isr, eligible, candidate, true) : null);
      // No live in-sync replica: the partition is offline (leader -1), keeping its last ISR so the
      // replica that returns first from it can lead without losing acknowledged records.
      const next = election ?? { leader: -1, isr: l.isr, kind: 'isr' as const };
      if (next.leader === l.leader && next.isr.length === l.isr.length) continue;
      if ((await this.writeLeadership(p, { ...l, leader: next.leader, isr: next.isr }, true, next.kind)) === null) continue;
      changed.push(p);
      if (next.leader >= 0) this.noteElection(p, l, next.leader, next.kind);
    }
    return changed;
  }

  /**
   * An election that did not come from the ISR is told: from the eligible leader replicas at
   * info (nothing committed is lost), an unclean one at warn and counted, since records the old
   * ISR acknowledged may be gone; which ones is known only when an old ISR member rejoins and
   * truncates to the new leader's log.
   */
  noteElection(p: TopicPartition, before: PartitionLeadership, leader: number, kind: ElectionKind): void {
    const context = {
      topic: p.topic,
      partition: p.partition,
      oldLeader: before.leader,
      oldIsr: before.isr,
      leader,
      leaderEpoch: before.leaderEpoch + 1,
    };
    if (kind === 'eligible') this.log.info('leader elected from the eligible leader replicas (KIP-966)', context);
    else if (kind === 'unclean') {
      this.log.warn('unclean leader election: an out-of-sync replica leads, records the old ISR had may be lost', context);
      this.settings.onUncleanElection();
    }
  }

  private async topicSetting(topic: string, key: string): Promise<string | null> {
    let overrides = this.ctx.topicOverrides.get(topic);
    if (overrides === undefined) {
      overrides = new Map(Object.entries(await this.session.zk.getEntityConfig('topics', topic)));
      this.ctx.topicOverrides.set(topic, overrides);
    }
    return overrides.get(key) ?? this.settings.brokerSetting(key);
  }

  async uncleanElectionEnabled(topic: string): Promise<boolean> {
    return (await this.topicSetting(topic, 'unclean.leader.election.enable'))?.toLowerCase() === 'true';
  }

  private async effectiveMinIsr(p: TopicPartition): Promise<number> {
    const configured = Number((await this.topicSetting(p.topic, 'min.insync.replicas')) ?? '1');
    return Math.min(configured, this.ctx.replicas(p.topic, p.partition).length);
  }

  async dropDeadFromIsr(partitions: readonly TopicPartition[], failed: ReadonlySet<number>): Promise<TopicPartition[]> {
    const changed: TopicPartition[] = [];
    for (const p of partitions) {
      const l = this.ctx.leadership(p.topic, p.partition);
      if (l === undefined || l.leader < 0) continue;
      const isr = l.isr.filter((id) => id === l.leader || (this.ctx.isRegistered(id) && !failed.has(id)));
      if (isr.length === l.isr.length) continue;
      if ((await this.writeLeadership(p, { ...l, isr }, true)) !== null) changed.push(p);
    }
    return changed;
  }

  /**
   * Writes a partition's next state with a check on the znode version it was read at, bumping the
   * leader epoch when asked (leader changes and controller-made ISR changes do, as in Kafka).
   * On a version conflict the state is re-read and the change given up (null): the caller's next
   * event sees the newer state.
   */
  async writeLeadership(
    p: TopicPartition,
    next: PartitionLeadership,
    bumpEpoch: boolean,
    kind: ElectionKind = 'isr',
  ): Promise<PartitionLeadership | null> {
    const guard = this.session.requireGuard();
    const key = topicPartitionKey(p.topic, p.partition);
    const minIsr = await this.effectiveMinIsr(p);
    let current = this.ctx.leadership(p.topic, p.partition)!;
    for (let attempt = 0; attempt < WRITE_ATTEMPTS; attempt++) {
      const state: LeaderAndIsrZk = {
        leader: next.leader,
        leaderEpoch: bumpEpoch ? current.leaderEpoch + 1 : current.leaderEpoch,
        isr: [...next.isr],
        controllerEpoch: guard.epoch,
      };
      try {
        const zkVersion = await this.session.zk.updatePartitionState(guard, p.topic, p.partition, state, current.zkVersion);
        const written = { ...state, zkVersion };
        this.ctx.leaderships.set(key, written);
        // After an unclean election the new leader's log is the truth: no one else is vouched for.
        const eligible =
          kind === 'unclean' ? [] : eligibleAfterIsrChange(this.ctx.eligible(p.topic, p.partition), current.isr, state.isr, minIsr);
        if (eligible.length > 0) this.ctx.eligibleLeaders.set(key, eligible);
        else this.ctx.eligibleLeaders.delete(key);
        return written;
      } catch (err) {
        if (!(err instanceof ZkBadVersionError)) throw err;
        const stored = await this.session.zk.getPartitionState(p.topic, p.partition);
        if (stored === null) return null;
        current = { ...stored.state, zkVersion: stored.zkVersion };
        this.ctx.leaderships.set(key, current);
        // ISR changes this controller did not see: what it knew of who left when is void.
        this.ctx.eligibleLeaders.delete(key);
        if (current.leader !== next.leader || current.leaderEpoch !== next.leaderEpoch) return null;
      }
    }
    return null;
  }

  announce(changed: readonly TopicPartition[], isNew = false): void {
    if (changed.length === 0) return;
    for (const id of this.ctx.brokers.keys()) this.sendLeaderAndIsr(id, this.hostedBy(id, changed), isNew);
    this.sendUpdateMetadata([...this.ctx.brokers.keys()], changed);
  }

  sendLeaderAndIsr(brokerId: number, partitions: readonly TopicPartition[], isNew: boolean): void {
    if (partitions.length === 0) return;
    const epoch = this.ctx.brokers.get(brokerId)?.epoch ?? -1n;
    const onStorageErrors = (offline: TopicPartition[]): void => this.onReplicasOffline(brokerId, epoch, offline);
    this.channel.send(
      brokerId,
      'LeaderAndIsr',
      leaderAndIsr(this.ctx, this.session.identity, brokerId, partitions, isNew, onStorageErrors),
    );
  }

  sendUpdateMetadata(brokers: readonly number[], partitions: readonly TopicPartition[]): void {
    for (const id of brokers)
      this.channel.send(id, 'UpdateMetadata', updateMetadata(this.ctx, this.session.identity, id, partitions, this.ctx.deleting));
  }

  sendStopReplica(brokerId: number, partitions: readonly TopicPartition[], deletePartition: boolean): void {
    this.channel.send(
      brokerId,
      deletePartition ? 'StopReplica(delete)' : 'StopReplica',
      stopReplica(this.ctx, this.session.identity, brokerId, partitions, deletePartition),
    );
  }
}
