/**
 * Kafka's ZooKeeper-era controller (`KafkaController`), run by every cluster member and active on
 * the one that wins the `/controller` znode. When active it reads the cluster from ZooKeeper,
 * watches brokers, topics and deletions, elects partition leaders, keeps the ISR (shrinking it
 * when a broker goes, as Kafka's offline-replica transition does), writes every change to the
 * partition state znodes under a check of the controller epoch's version, and then tells the
 * brokers: LeaderAndIsr to the replicas of the partitions that changed, UpdateMetadata to every
 * live broker. It answers AlterPartition (ISR changes asked by leaders) and ControlledShutdown.
 *
 * Events run one at a time in arrival order (Kafka's single controller event thread), so the
 * context is never seen half-changed. A write refused because another controller has taken over
 * (`ControllerMovedError`) makes this one resign.
 */
import type { SaslCredentials } from '../../client/sasl-client.js';
import { KafkaError } from '../../common/kafka-error.js';
import { randomUuid } from '../../common/uuid.js';
import type { Logger } from '../../common/logger.js';
import type { ClientTls } from '../../common/tls-config.js';
import { ErrorCode } from '../../protocol/errors.js';
import { ElectionType, type ControllerPort, type ElectionResult, type IsrChangeAnswer, type IsrChangeRequest, type ReassignmentRequest, type ReassignmentState } from '../../metadata/replica-control.js';
import { ControllerMovedError, ZkBadVersionError, type ControllerGuard, type KafkaZkClient, type LeaderAndIsrZk, type RegisteredBroker } from '../../zk/index.js';
import { ControllerChannel } from './controller-channel.js';
import { ControllerContext, endpointOf, tpKey, type PartitionLeadership, type TopicPartitionKey } from './controller-context.js';
import { leaderAndIsr, stopReplica, updateMetadata, type ControllerIdentity } from './controller-requests.js';
import { controlledShutdownElection, eligibleAfterIsrChange, offlineElection, preferredElection, type Election, type ElectionKind } from './leader-election.js';

export interface ZkControllerOptions {
  readonly brokerId: number;
  /** The listener brokers are reached on, and its TLS when it is SSL or SASL_SSL. */
  readonly interBrokerListenerName: string;
  readonly interBrokerTls: ClientTls | null;
  /** This broker's value of a broker config key (dynamic, static or default): what a topic without an override inherits. */
  readonly brokerSetting: (key: string) => string | null;
  /** Counts an unclean leader election (Kafka's UncleanLeaderElectionsPerSec). */
  readonly onUncleanElection: () => void;
  readonly deleteTopicEnable: boolean;
  readonly requestTimeoutMs: number;
  /** How the controller authenticates to the brokers when the inter-broker listener is a SASL one. */
  readonly sasl?: SaslCredentials;
  /** `auto.leader.rebalance.enable`, `leader.imbalance.check.interval.seconds` (in ms), `leader.imbalance.per.broker.percentage`. */
  readonly autoLeaderRebalance: { readonly enabled: boolean; readonly checkIntervalMs: number; readonly perBrokerPercentage: number };
}

function sameOrder(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

const RETRY_BACKOFF_MS = 200;
/** Retries of a partition state write whose znode version moved meanwhile (an AlterPartition raced it). */
const WRITE_ATTEMPTS = 5;

export class ZkController implements ControllerPort {
  private readonly ctx: ControllerContext;
  private readonly channel: ControllerChannel;
  private guard: ControllerGuard | null = null;
  private events: Promise<void> = Promise.resolve();
  private closed = false;
  private rebalanceTimer: NodeJS.Timeout | null = null;

  constructor(
    private zk: KafkaZkClient,
    private readonly options: ZkControllerOptions,
    private readonly log: Logger,
  ) {
    this.ctx = new ControllerContext(options.interBrokerListenerName);
    this.channel = new ControllerChannel({ requestTimeoutMs: options.requestTimeoutMs, retryBackoffMs: RETRY_BACKOFF_MS, clientId: `controller-${options.brokerId}`, tls: options.interBrokerTls, ...(options.sasl === undefined ? {} : { sasl: options.sasl }) }, log);
  }

  get isActive(): boolean {
    return this.guard !== null;
  }

  get epoch(): number {
    return this.guard?.epoch ?? -1;
  }

  /** Competes for `/controller` now and whenever it is freed. */
  start(): void {
    // enqueue never rejects: it logs a failed event itself.
    void this.enqueue('elect', () => this.elect());
  }

  close(): void {
    this.closed = true;
    this.resign();
  }

  /**
   * The member's ZooKeeper session expired and a new one replaced it: whatever this controller
   * was is void (its `/controller` znode went with the old session), so it resigns and competes
   * again over the new session.
   */
  replaceSession(zk: KafkaZkClient): void {
    void this.enqueue('session replaced', async () => {
      if (this.guard !== null) this.log.warn('the ZooKeeper session that made this broker controller expired; resigning');
      this.resign();
      this.zk = zk;
      await this.elect();
    });
  }

  private enqueue(name: string, event: () => Promise<void>): Promise<void> {
    const run = this.events.then(async () => {
      if (this.closed) return;
      try {
        await event();
      } catch (err) {
        if (err instanceof ControllerMovedError) {
          this.log.warn('another controller took over; resigning', { event: name });
          this.resign();
          void this.enqueue('elect', () => this.elect());
          return;
        }
        this.log.error('controller event failed', { event: name, error: (err as Error).stack ?? String(err) });
      }
    });
    this.events = run;
    return run;
  }

  /** Runs a broker's request as a controller event (in order with the others) and answers with its result. */
  private ask<T>(name: string, work: () => Promise<T>): Promise<T> {
    return new Promise((resolve, reject) => {
      void this.enqueue(name, async () => {
        try {
          resolve(await work());
        } catch (err) {
          reject(err);
          throw err;
        }
      });
    });
  }

  private async elect(): Promise<void> {
    if (this.guard !== null) return;
    const won = await this.zk.tryBecomeController(this.options.brokerId);
    if (won === null) {
      const current = await this.zk.getController(() => void this.enqueue('controller change', () => this.onControllerChange()));
      // Freed between our attempt and the watch: try again rather than wait for a change that happened.
      if (current === null) void this.enqueue('elect', () => this.elect());
      return;
    }
    this.guard = won;
    this.log.info('became the controller', { epoch: won.epoch });
    await this.onBecomingController();
    const rebalance = this.options.autoLeaderRebalance;
    if (rebalance.enabled) {
      this.rebalanceTimer = setInterval(() => void this.enqueue('leader imbalance check', () => this.checkLeaderImbalance()), rebalance.checkIntervalMs);
      this.rebalanceTimer.unref();
    }
  }

  private async onControllerChange(): Promise<void> {
    const current = await this.zk.getController(() => void this.enqueue('controller change', () => this.onControllerChange()));
    if (current !== this.options.brokerId && this.guard !== null) {
      this.log.warn('lost the controller znode; resigning', { now: current });
      this.resign();
    }
    if (current === null) await this.elect();
  }

  private resign(): void {
    if (this.rebalanceTimer !== null) clearInterval(this.rebalanceTimer);
    this.rebalanceTimer = null;
    this.guard = null;
    this.channel.close();
    this.ctx.clear();
  }

  private get identity(): ControllerIdentity {
    return { controllerId: this.options.brokerId, controllerEpoch: this.requireGuard().epoch };
  }

  private requireGuard(): ControllerGuard {
    if (this.guard === null) throw new KafkaError(ErrorCode.NOT_CONTROLLER, `broker ${this.options.brokerId} is not the controller`);
    return this.guard;
  }

  // ---- taking over ---------------------------------------------------------------------------

  private async onBecomingController(): Promise<void> {
    await this.refreshBrokers();
    const topics = await this.zk.getTopics(() => void this.enqueue('topic change', () => this.onTopicChange()));
    for (const topic of topics) await this.loadTopic(topic);
    const all = [...this.ctx.partitions()];
    for (const p of all) {
      const stored = await this.zk.getPartitionState(p.topic, p.partition);
      if (stored !== null) this.ctx.leaderships.set(tpKey(p.topic, p.partition), { ...stored.state, zkVersion: stored.zkVersion });
    }
    await this.initializePartitions(all.filter((p) => this.ctx.leadership(p.topic, p.partition) === undefined));
    await this.electOfflineLeaders(all.filter((p) => !this.leaderAlive(p)), new Set());
    await this.dropDeadFromIsr(all, new Set());
    for (const id of this.ctx.brokers.keys()) this.sendLeaderAndIsr(id, this.hostedBy(id, all), false);
    this.sendUpdateMetadata([...this.ctx.brokers.keys()], all);
    await this.onTopicDeletion();
    await this.onLogDirEvent();
  }

  private async refreshBrokers(): Promise<{ added: number[]; removed: number[] }> {
    const registered = await this.zk.getBrokers(() => void this.enqueue('broker change', () => this.onBrokerChange()));
    const before = new Map(this.ctx.brokers);
    this.ctx.brokers.clear();
    for (const b of registered) this.ctx.brokers.set(b.id, b);
    const added: number[] = [];
    const removed: number[] = [];
    for (const b of registered) {
      const old = before.get(b.id);
      if (old === undefined) added.push(b.id);
      else if (old.epoch !== b.epoch) {
        // Re-registered (a restart faster than the watch): it lost its state, so it is new again.
        removed.push(b.id);
        added.push(b.id);
        this.channel.resetBroker(b.id);
      }
    }
    for (const id of before.keys()) if (!this.ctx.brokers.has(id)) removed.push(id);
    for (const id of removed) {
      this.ctx.shuttingDown.delete(id);
      this.ctx.offlineDirReplicas.delete(id);
    }
    this.channel.setBrokers(registered.map((b: RegisteredBroker) => ({ id: b.id, ...endpointOf(b, this.ctx.interBrokerListenerName) })));
    return { added, removed };
  }

  private async loadTopic(topic: string): Promise<boolean> {
    let assignment = await this.zk.getTopicAssignment(topic, () => void this.enqueue(`partition change ${topic}`, () => this.onPartitionChange(topic)));
    if (assignment === null) return false;
    let topicId = assignment.topicId;
    if (topicId === null) {
      // Written before topic ids (Kafka 2.8): the controller gives it one, as Kafka's does.
      topicId = randomUuid();
      const zkVersion = await this.zk.setTopicAssignment(topic, { ...assignment, topicId }, assignment.zkVersion, this.requireGuard());
      assignment = { ...assignment, topicId, zkVersion };
    }
    this.ctx.topics.set(topic, { topicId, replicas: new Map(assignment.partitions), zkVersion: assignment.zkVersion });
    // Reassignments a previous controller started continue (KIP-455: the target is the replicas minus those being removed).
    for (const [partition, replicas] of assignment.partitions) {
      const adding = assignment.addingReplicas.get(partition) ?? [];
      const removing = assignment.removingReplicas.get(partition) ?? [];
      const key = tpKey(topic, partition);
      if (adding.length === 0 && removing.length === 0) this.ctx.reassignments.delete(key);
      else this.ctx.reassignments.set(key, { target: replicas.filter((r) => !removing.includes(r)), adding, removing });
    }
    return true;
  }

  // ---- events --------------------------------------------------------------------------------

  private async onBrokerChange(): Promise<void> {
    if (this.guard === null) return;
    const { added, removed } = await this.refreshBrokers();
    if (added.length === 0 && removed.length === 0) return;
    this.log.info('brokers changed', { added, removed, live: [...this.ctx.brokers.keys()] });
    const all = [...this.ctx.partitions()];
    const restarted = new Set(removed);
    // As Kafka: first the departed (and restarted) brokers fail — their leaderships move to other
    // in-sync replicas and they leave the ISRs — then the new ones start, which can bring
    // offline partitions back and lets partitions that never had a live replica begin.
    const leaderless = all.filter((p) => {
      const l = this.ctx.leadership(p.topic, p.partition);
      return l !== undefined && restarted.has(l.leader);
    });
    const changed = new Set<string>();
    const note = (ps: readonly TopicPartitionKey[]): void => ps.forEach((p) => changed.add(tpKey(p.topic, p.partition)));
    note(await this.electOfflineLeaders(leaderless, restarted));
    note(await this.dropDeadFromIsr(all, restarted));
    note(await this.electOfflineLeaders(all.filter((p) => (this.ctx.leadership(p.topic, p.partition)?.leader ?? 0) < 0), new Set()));
    note(await this.initializePartitions(all.filter((p) => this.ctx.leadership(p.topic, p.partition) === undefined)));
    const changedPartitions = all.filter((p) => changed.has(tpKey(p.topic, p.partition)));
    const live = [...this.ctx.brokers.keys()];
    // A new broker learns every partition it hosts; the others learn what changed.
    for (const id of live) this.sendLeaderAndIsr(id, this.hostedBy(id, added.includes(id) ? all : changedPartitions), false);
    // Every broker's cache holds the live brokers, which changed.
    this.sendUpdateMetadata(live, all);
    if (added.length > 0 && this.ctx.deleting.size > 0) await this.onTopicDeletion();
  }

  private async onTopicChange(): Promise<void> {
    if (this.guard === null) return;
    const topics = await this.zk.getTopics(() => void this.enqueue('topic change', () => this.onTopicChange()));
    const added = topics.filter((t) => !this.ctx.topics.has(t));
    for (const t of this.ctx.topics.keys()) if (!topics.includes(t)) this.ctx.removeTopic(t);
    const created: TopicPartitionKey[] = [];
    for (const t of added) if (await this.loadTopic(t)) created.push(...this.ctx.partitionsOf(t));
    if (created.length === 0) return;
    this.log.info('topics created', { topics: added });
    await this.onNewPartitions(created);
  }

  private async onPartitionChange(topic: string): Promise<void> {
    if (this.guard === null) return;
    const before = new Set(this.ctx.topics.get(topic)?.replicas.keys() ?? []);
    if (!(await this.loadTopic(topic))) return;
    const added = this.ctx.partitionsOf(topic).filter((p) => !before.has(p.partition));
    if (added.length > 0) await this.onNewPartitions(added);
  }

  /**
   * A topic's config overrides changed (the member's config watcher read them): the controller's
   * copy is replaced, and a changed `min.insync.replicas` voids the eligible leader replicas,
   * judged by the old value. As Kafka's `TopicUncleanLeaderElectionEnable`: unclean election
   * enabled on the topic elects its offline partitions at once, rather than at the next broker
   * change.
   */
  topicConfigChanged(topic: string, overrides: ReadonlyMap<string, string>): void {
    void this.enqueue(`topic config change ${topic}`, async () => {
      if (this.guard === null || !this.ctx.topics.has(topic)) return;
      const before = this.ctx.topicOverrides.get(topic);
      this.ctx.topicOverrides.set(topic, overrides);
      const partitions = this.ctx.partitionsOf(topic);
      if (before?.get('min.insync.replicas') !== overrides.get('min.insync.replicas')) for (const p of partitions) this.ctx.eligibleLeaders.delete(tpKey(p.topic, p.partition));
      if (!(await this.uncleanElectionEnabled(topic))) return;
      this.announce(await this.electOfflineLeaders(partitions.filter((p) => !this.leaderAlive(p)), new Set()));
    });
  }

  private async onNewPartitions(partitions: readonly TopicPartitionKey[]): Promise<void> {
    this.announce(await this.initializePartitions(partitions), true);
  }

  /**
   * Topic deletion (Kafka's `TopicDeletionManager`): clients stop seeing the topic at once
   * (UpdateMetadata names its partitions as being deleted), but the logs go only when every
   * replica can be told: while one of its brokers is down the deletion waits, and resumes when
   * that broker registers again, so no broker keeps a stray log of a deleted topic.
   */
  private async onTopicDeletion(): Promise<void> {
    if (this.guard === null) return;
    const marked = await this.zk.getTopicsToDelete(() => void this.enqueue('topic deletion', () => this.onTopicDeletion()));
    for (const topic of marked) {
      if (!this.ctx.topics.has(topic)) {
        await this.zk.deleteTopicZnodes(this.requireGuard(), topic);
        continue;
      }
      if (!this.options.deleteTopicEnable) {
        this.log.warn('topic deletion is disabled: the deletion mark is dropped', { topic });
        await this.zk.unmarkTopicForDeletion(this.requireGuard(), topic);
        continue;
      }
      const partitions = this.ctx.partitionsOf(topic);
      const firstSeen = !this.ctx.deleting.has(topic);
      this.ctx.deleting.add(topic);
      if (firstSeen) this.sendUpdateMetadata([...this.ctx.brokers.keys()], partitions);
      const down = [...new Set(partitions.flatMap((p) => this.ctx.replicas(p.topic, p.partition)))].filter((id) => !this.ctx.isRegistered(id));
      if (down.length > 0) {
        if (firstSeen) this.log.info('topic deletion waits for brokers hosting replicas', { topic, brokers: down });
        continue;
      }
      for (const id of this.ctx.brokers.keys()) {
        const hosted = this.hostedBy(id, partitions);
        if (hosted.length > 0) this.channel.send(id, 'StopReplica(delete)', stopReplica(this.ctx, this.identity, id, hosted, true));
      }
      await this.zk.deleteTopicZnodes(this.requireGuard(), topic);
      this.ctx.removeTopic(topic);
      this.log.info('topic deleted', { topic });
    }
  }

  // ---- requests from brokers -----------------------------------------------------------------

  /** AlterPartition: a leader's ISR change, checked against the partition's current epochs. */
  alterPartition(brokerId: number, brokerEpoch: bigint, items: readonly IsrChangeRequest[]): Promise<{ errorCode: number; partitions: IsrChangeAnswer[] }> {
    return this.ask('alter partition', () => this.applyAlterPartition(brokerId, brokerEpoch, items));
  }

  private async applyAlterPartition(brokerId: number, brokerEpoch: bigint, items: readonly IsrChangeRequest[]): Promise<{ errorCode: number; partitions: IsrChangeAnswer[] }> {
    if (this.guard === null) return { errorCode: ErrorCode.NOT_CONTROLLER, partitions: [] };
    const broker = this.ctx.brokers.get(brokerId);
    if (broker === undefined || (brokerEpoch !== -1n && brokerEpoch < broker.epoch)) return { errorCode: ErrorCode.STALE_BROKER_EPOCH, partitions: [] };
    const answers: IsrChangeAnswer[] = [];
    const changed: TopicPartitionKey[] = [];
    for (const item of items) {
      const current = this.ctx.leadership(item.topic, item.partition);
      const answer = (errorCode: number, l: PartitionLeadership | undefined = current): IsrChangeAnswer => ({
        topic: item.topic,
        partition: item.partition,
        errorCode,
        leader: l?.leader ?? -1,
        leaderEpoch: l?.leaderEpoch ?? -1,
        newIsr: l?.isr ?? [],
        partitionEpoch: l?.zkVersion ?? -1,
      });
      if (current === undefined) answers.push(answer(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION));
      else if (current.leader !== brokerId) answers.push(answer(ErrorCode.NOT_LEADER_OR_FOLLOWER));
      else if (item.leaderEpoch !== current.leaderEpoch) answers.push(answer(ErrorCode.FENCED_LEADER_EPOCH));
      // A leader sends a proposal again when it lost the answer: already applied, it is answered
      // with the state it made (Kafka's equalsAllowStalePartitionEpoch), not refused as outdated.
      else if (item.partitionEpoch <= current.zkVersion && sameOrder(item.newIsr, current.isr)) answers.push(answer(ErrorCode.NONE));
      else if (item.partitionEpoch !== current.zkVersion) answers.push(answer(ErrorCode.INVALID_UPDATE_VERSION));
      else if (item.newIsr.some((id) => !this.ctx.isLive(id) && id !== brokerId) || !item.newIsr.every((id) => this.ctx.replicas(item.topic, item.partition).includes(id))) {
        answers.push(answer(ErrorCode.INELIGIBLE_REPLICA));
      } else {
        const next = await this.writeLeadership(item, { ...current, isr: item.newIsr }, false);
        if (next === null) answers.push(answer(ErrorCode.INVALID_UPDATE_VERSION));
        else {
          changed.push(item);
          answers.push(answer(ErrorCode.NONE, next));
        }
      }
    }
    for (const p of changed) await this.maybeCompleteReassignment(p);
    if (changed.length > 0) {
      this.log.info('ISR changed', { broker: brokerId, partitions: changed.map((p) => `${p.topic}-${p.partition}:[${this.ctx.leadership(p.topic, p.partition)!.isr.join(',')}]`) });
      this.sendUpdateMetadata([...this.ctx.brokers.keys()], changed);
    }
    return { errorCode: ErrorCode.NONE, partitions: answers };
  }

  /**
   * ControlledShutdown: the broker's leaderships move to other in-sync replicas and it leaves the
   * ISRs it is in; answers the partitions it still leads (no other replica could take over).
   */
  controlledShutdown(brokerId: number, brokerEpoch: bigint): Promise<{ errorCode: number; remaining: TopicPartitionKey[] }> {
    return this.ask('controlled shutdown', () => this.applyControlledShutdown(brokerId, brokerEpoch));
  }

  private async applyControlledShutdown(brokerId: number, brokerEpoch: bigint): Promise<{ errorCode: number; remaining: TopicPartitionKey[] }> {
    if (this.guard === null) return { errorCode: ErrorCode.NOT_CONTROLLER, remaining: [] };
    const broker = this.ctx.brokers.get(brokerId);
    if (broker === undefined) return { errorCode: ErrorCode.BROKER_NOT_AVAILABLE, remaining: [] };
    if (brokerEpoch !== -1n && brokerEpoch < broker.epoch) return { errorCode: ErrorCode.STALE_BROKER_EPOCH, remaining: [] };
    this.ctx.shuttingDown.add(brokerId);
    const hosted = this.hostedBy(brokerId, [...this.ctx.partitions()]);
    const changed: TopicPartitionKey[] = [];
    const stopped: TopicPartitionKey[] = [];
    for (const p of hosted) {
      const l = this.ctx.leadership(p.topic, p.partition);
      if (l === undefined) continue;
      const replicas = this.ctx.replicas(p.topic, p.partition);
      let election: Election | null = null;
      if (l.leader === brokerId) {
        if (replicas.length > 1) election = controlledShutdownElection(replicas, l.isr, this.ctx.isLive, this.ctx.shuttingDown);
      } else if (l.isr.includes(brokerId)) {
        election = { leader: l.leader, isr: l.isr.filter((id) => id !== brokerId) };
        stopped.push(p);
      } else stopped.push(p);
      if (election === null) continue;
      if ((await this.writeLeadership(p, { ...l, leader: election.leader, isr: election.isr }, true)) !== null) changed.push(p);
    }
    for (const id of this.ctx.brokers.keys()) if (id !== brokerId) this.sendLeaderAndIsr(id, this.hostedBy(id, changed), false);
    if (stopped.length > 0) this.channel.send(brokerId, 'StopReplica', stopReplica(this.ctx, this.identity, brokerId, stopped, false));
    this.sendUpdateMetadata([...this.ctx.brokers.keys()], changed);
    const remaining = hosted.filter((p) => this.ctx.leadership(p.topic, p.partition)?.leader === brokerId);
    this.log.info('controlled shutdown', { broker: brokerId, moved: changed.length, remaining: remaining.length });
    return { errorCode: ErrorCode.NONE, remaining };
  }

  /** ElectLeaders (Kafka's preferred and unclean elections), answered per partition. */
  electLeaders(electionType: number, partitions: readonly TopicPartitionKey[] | null): Promise<{ errorCode: number; results: ElectionResult[] }> {
    return this.ask('elect leaders', () => this.applyElectLeaders(electionType, partitions));
  }

  private async applyElectLeaders(electionType: number, asked: readonly TopicPartitionKey[] | null): Promise<{ errorCode: number; results: ElectionResult[] }> {
    if (this.guard === null) return { errorCode: ErrorCode.NOT_CONTROLLER, results: [] };
    const partitions = asked ?? [...this.ctx.partitions()];
    const results: ElectionResult[] = [];
    const changed: TopicPartitionKey[] = [];
    for (const p of partitions) {
      const result = (errorCode: number, errorMessage: string | null = null): ElectionResult => ({ topic: p.topic, partition: p.partition, errorCode, errorMessage });
      const l = this.ctx.leadership(p.topic, p.partition);
      const replicas = this.ctx.replicas(p.topic, p.partition);
      if (l === undefined) {
        results.push(result(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `The partition ${p.topic}-${p.partition} does not exist.`));
        continue;
      }
      let election: Election | null;
      let kind: ElectionKind = 'isr';
      if (electionType === ElectionType.PREFERRED) {
        if (l.leader === replicas[0]) {
          results.push(result(ErrorCode.ELECTION_NOT_NEEDED, 'Leader election not needed for topic partition.'));
          continue;
        }
        election = preferredElection(replicas, l.isr, this.ctx.isLive);
        if (election === null) {
          results.push(result(ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE, `Failed to elect leader for partition ${p.topic}-${p.partition} under strategy PreferredReplicaPartitionLeaderElectionStrategy`));
          continue;
        }
      } else if (electionType === ElectionType.UNCLEAN) {
        if (l.leader >= 0 && this.ctx.isLive(l.leader)) {
          results.push(result(ErrorCode.ELECTION_NOT_NEEDED, 'Leader election not needed for topic partition.'));
          continue;
        }
        const offline = offlineElection(replicas, l.isr, this.ctx.eligible(p.topic, p.partition), this.ctx.isLive, true);
        if (offline === null) {
          results.push(result(ErrorCode.ELIGIBLE_LEADERS_NOT_AVAILABLE, `Failed to elect leader for partition ${p.topic}-${p.partition} under strategy OfflinePartitionLeaderElectionStrategy(true)`));
          continue;
        }
        election = offline;
        kind = offline.kind;
      } else {
        results.push(result(ErrorCode.INVALID_REQUEST, `Unknown election type ${electionType}`));
        continue;
      }
      if ((await this.writeLeadership(p, { ...l, leader: election.leader, isr: election.isr }, true, kind)) === null) {
        results.push(result(ErrorCode.NOT_CONTROLLER, 'the partition state changed meanwhile'));
        continue;
      }
      this.noteElection(p, l, election.leader, kind);
      changed.push(p);
      results.push(result(ErrorCode.NONE));
    }
    this.announce(changed);
    // Asked for everything, Kafka answers only what it elected or failed to.
    return { errorCode: ErrorCode.NONE, results: asked === null ? results.filter((r) => r.errorCode !== ErrorCode.ELECTION_NOT_NEEDED) : results };
  }

  /**
   * `auto.leader.rebalance.enable`: a broker leading too few of the partitions it is the
   * preferred replica of (more than `leader.imbalance.per.broker.percentage` led elsewhere) gets
   * them back, where it is alive and in sync (Kafka's `checkAndTriggerAutoLeaderRebalance`).
   */
  private async checkLeaderImbalance(): Promise<void> {
    if (this.guard === null) return;
    const byPreferred = new Map<number, TopicPartitionKey[]>();
    for (const p of this.ctx.partitions()) {
      const preferred = this.ctx.replicas(p.topic, p.partition)[0];
      if (preferred === undefined) continue;
      byPreferred.set(preferred, [...(byPreferred.get(preferred) ?? []), p]);
    }
    const toElect: TopicPartitionKey[] = [];
    for (const [broker, preferredOf] of byPreferred) {
      if (!this.ctx.isLive(broker)) continue;
      const notLed = preferredOf.filter((p) => this.ctx.leadership(p.topic, p.partition)?.leader !== broker);
      const ratio = (notLed.length * 100) / preferredOf.length;
      if (ratio > this.options.autoLeaderRebalance.perBrokerPercentage) toElect.push(...notLed);
    }
    if (toElect.length === 0) return;
    const { results } = await this.applyElectLeaders(ElectionType.PREFERRED, toElect);
    this.log.info('leader imbalance: preferred leaders elected', { elected: results.filter((r) => r.errorCode === ErrorCode.NONE).length, asked: toElect.length });
  }

  /**
   * AlterPartitionReassignments (KIP-455, as Kafka's ZooKeeper controller runs it): the partition's
   * replicas become the target plus the original ones, the new replicas start following (a new
   * leader epoch tells every replica), and once every target replica is in the ISR the
   * reassignment completes (`maybeCompleteReassignment`). A null target cancels one in progress.
   */
  alterReassignments(items: readonly ReassignmentRequest[]): Promise<ElectionResult[]> {
    return this.ask('alter reassignments', () => this.applyReassignments(items));
  }

  /** ListPartitionReassignments: those in progress, of `partitions` or of all. */
  listReassignments(partitions: readonly TopicPartitionKey[] | null): Promise<{ errorCode: number; reassignments: ReassignmentState[] }> {
    return this.ask('list reassignments', async () => {
      if (this.guard === null) return { errorCode: ErrorCode.NOT_CONTROLLER, reassignments: [] };
      const wanted = partitions === null ? null : new Set(partitions.map((p) => tpKey(p.topic, p.partition)));
      const reassignments: ReassignmentState[] = [];
      for (const p of this.ctx.partitions()) {
        const r = this.ctx.reassignments.get(tpKey(p.topic, p.partition));
        if (r === undefined || (wanted !== null && !wanted.has(tpKey(p.topic, p.partition)))) continue;
        reassignments.push({ ...p, replicas: this.ctx.replicas(p.topic, p.partition), adding: r.adding, removing: r.removing });
      }
      return { errorCode: ErrorCode.NONE, reassignments };
    });
  }

  private async applyReassignments(items: readonly ReassignmentRequest[]): Promise<ElectionResult[]> {
    const results: ElectionResult[] = [];
    for (const item of items) {
      const result = (errorCode: number, errorMessage: string | null = null): ElectionResult => ({ topic: item.topic, partition: item.partition, errorCode, errorMessage });
      if (this.guard === null) {
        results.push(result(ErrorCode.NOT_CONTROLLER));
        continue;
      }
      const key = tpKey(item.topic, item.partition);
      const l = this.ctx.leadership(item.topic, item.partition);
      if (l === undefined) {
        results.push(result(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `The partition ${item.topic}-${item.partition} does not exist.`));
        continue;
      }
      const ongoing = this.ctx.reassignments.get(key);
      const current = this.ctx.replicas(item.topic, item.partition);
      const original = ongoing === undefined ? current : current.filter((r) => !ongoing.adding.includes(r));
      let target: readonly number[];
      if (item.target === null) {
        if (ongoing === undefined) {
          results.push(result(ErrorCode.NO_REASSIGNMENT_IN_PROGRESS, `No reassignment in progress for ${item.topic}-${item.partition}.`));
          continue;
        }
        target = original;
      } else {
        const problem = this.targetProblem(item.target);
        if (problem !== null) {
          results.push(result(ErrorCode.INVALID_REPLICA_ASSIGNMENT, problem));
          continue;
        }
        target = item.target;
      }
      const adding = target.filter((r) => !original.includes(r));
      const removing = original.filter((r) => !target.includes(r));
      const replicas = [...target, ...original.filter((r) => !target.includes(r))];
      this.ctx.topics.get(item.topic)!.replicas.set(item.partition, replicas);
      if (adding.length === 0 && removing.length === 0 && sameOrder(target, current)) this.ctx.reassignments.delete(key);
      else this.ctx.reassignments.set(key, { target, adding, removing });
      await this.writeAssignment(item.topic);
      // A new leader epoch with the grown replica set: the leader tracks the new followers, which start fetching.
      if ((await this.writeLeadership(item, { ...l }, true)) !== null) {
        for (const id of replicas) this.sendLeaderAndIsr(id, [item], adding.includes(id));
        this.sendUpdateMetadata([...this.ctx.brokers.keys()], [item]);
      }
      await this.maybeCompleteReassignment(item);
      this.log.info('reassignment started', { topic: item.topic, partition: item.partition, target, adding, removing });
      results.push(result(ErrorCode.NONE));
    }
    return results;
  }

  private targetProblem(target: readonly number[]): string | null {
    if (target.length === 0) return 'The replica list must not be empty.';
    if (new Set(target).size !== target.length) return `Duplicate replica assignment: ${target.join(', ')}.`;
    const unknown = target.filter((id) => !this.ctx.isRegistered(id));
    return unknown.length > 0 ? `The proposed assignment contains non-live brokers: ${unknown.join(', ')}.` : null;
  }

  /**
   * Finishes a reassignment whose target replicas are all in the ISR: the replicas become the
   * target, a leader outside it (or gone) hands over to the first live in-sync target replica,
   * the removed replicas leave the ISR and delete their logs, and the assignment znode loses its
   * adding/removing entries.
   */
  private async maybeCompleteReassignment(p: TopicPartitionKey): Promise<void> {
    const key = tpKey(p.topic, p.partition);
    const r = this.ctx.reassignments.get(key);
    const l = this.ctx.leadership(p.topic, p.partition);
    if (r === undefined || l === undefined || !r.target.every((id) => l.isr.includes(id))) return;
    const isr = l.isr.filter((id) => r.target.includes(id));
    const leader = r.target.includes(l.leader) && this.ctx.isLive(l.leader) ? l.leader : r.target.find((id) => this.ctx.isLive(id) && isr.includes(id));
    if (leader === undefined) return;
    this.ctx.topics.get(p.topic)!.replicas.set(p.partition, [...r.target]);
    this.ctx.reassignments.delete(key);
    if ((await this.writeLeadership(p, { ...l, leader, isr }, true)) === null) return;
    await this.writeAssignment(p.topic);
    for (const id of r.target) this.sendLeaderAndIsr(id, [p], false);
    for (const id of r.removing) if (this.ctx.isRegistered(id)) this.channel.send(id, 'StopReplica(delete)', stopReplica(this.ctx, this.identity, id, [p], true));
    this.sendUpdateMetadata([...this.ctx.brokers.keys()], [p]);
    this.log.info('reassignment completed', { topic: p.topic, partition: p.partition, replicas: r.target, leader });
  }

  private async writeAssignment(topic: string): Promise<void> {
    const t = this.ctx.topics.get(topic)!;
    const adding = new Map<number, readonly number[]>();
    const removing = new Map<number, readonly number[]>();
    for (const partition of t.replicas.keys()) {
      const r = this.ctx.reassignments.get(tpKey(topic, partition));
      if (r === undefined) continue;
      if (r.adding.length > 0) adding.set(partition, r.adding);
      if (r.removing.length > 0) removing.set(partition, r.removing);
    }
    t.zkVersion = await this.zk.setTopicAssignment(topic, { topicId: t.topicId, partitions: t.replicas, addingReplicas: adding, removingReplicas: removing }, t.zkVersion, this.requireGuard());
  }

  /** LeaderAndIsr to the replicas of the changed partitions, UpdateMetadata to every live broker. */
  private announce(changed: readonly TopicPartitionKey[], isNew = false): void {
    if (changed.length === 0) return;
    for (const id of this.ctx.brokers.keys()) this.sendLeaderAndIsr(id, this.hostedBy(id, changed), isNew);
    this.sendUpdateMetadata([...this.ctx.brokers.keys()], changed);
  }

  // ---- log dir failures ----------------------------------------------------------------------

  /**
   * Log dir event notifications (Kafka's `processLogDirEventNotification`): each names a broker
   * a log dir of which failed. The controller deletes them and sends that broker LeaderAndIsr for
   * all its replicas (`onBrokerLogDirFailure`); the broker's KAFKA_STORAGE_ERROR answers say which
   * replicas are offline (`onReplicasOffline`).
   */
  private async onLogDirEvent(): Promise<void> {
    if (this.guard === null) return;
    const names = await this.zk.getLogDirEventNotifications(() => void this.enqueue('log dir event', () => this.onLogDirEvent()));
    if (names.length === 0) return;
    const brokers = new Set(await this.zk.getLogDirEventBrokers(names));
    await this.zk.deleteLogDirEventNotifications(this.requireGuard(), names);
    const all = [...this.ctx.partitions()];
    for (const id of brokers) {
      if (!this.ctx.isRegistered(id)) continue;
      this.log.warn('a log dir of a broker failed; asking it about all its replicas', { broker: id });
      this.sendLeaderAndIsr(id, this.hostedBy(id, all), false);
    }
  }

  /**
   * Replicas a broker answered KAFKA_STORAGE_ERROR for (Kafka's `onReplicasBecomeOffline`): offline
   * until that registration of the broker ends, so the partitions they led elect another in-sync
   * replica, they leave the ISRs, and every broker's metadata lists them as offline replicas.
   */
  private async onReplicasOffline(brokerId: number, brokerEpoch: bigint, partitions: readonly TopicPartitionKey[]): Promise<void> {
    // An answer from an earlier registration says nothing about the broker's current dirs.
    if (this.guard === null || this.ctx.brokers.get(brokerId)?.epoch !== brokerEpoch) return;
    const offline = this.ctx.offlineDirReplicas.get(brokerId) ?? new Set<string>();
    const fresh = partitions.filter((p) => !offline.has(tpKey(p.topic, p.partition)) && this.ctx.leadership(p.topic, p.partition) !== undefined);
    if (fresh.length === 0) return;
    for (const p of fresh) offline.add(tpKey(p.topic, p.partition));
    this.ctx.offlineDirReplicas.set(brokerId, offline);
    this.log.warn('replicas on a failed log dir are offline', { broker: brokerId, partitions: fresh.map((p) => `${p.topic}-${p.partition}`) });
    const failed = new Set([brokerId]);
    const led = fresh.filter((p) => this.ctx.leadership(p.topic, p.partition)?.leader === brokerId);
    const changed = new Set([...(await this.electOfflineLeaders(led, failed)), ...(await this.dropDeadFromIsr(fresh, failed))].map((p) => tpKey(p.topic, p.partition)));
    const changedPartitions = fresh.filter((p) => changed.has(tpKey(p.topic, p.partition)));
    for (const id of this.ctx.brokers.keys()) if (id !== brokerId) this.sendLeaderAndIsr(id, this.hostedBy(id, changedPartitions), false);
    // Their offline replicas changed even where the leadership did not.
    this.sendUpdateMetadata([...this.ctx.brokers.keys()], fresh);
  }

  // ---- state changes -------------------------------------------------------------------------

  private leaderAlive(p: TopicPartitionKey): boolean {
    const l = this.ctx.leadership(p.topic, p.partition);
    return l !== undefined && l.leader >= 0 && this.ctx.isLive(l.leader);
  }

  private hostedBy(brokerId: number, partitions: readonly TopicPartitionKey[]): TopicPartitionKey[] {
    return partitions.filter((p) => this.ctx.replicas(p.topic, p.partition).includes(brokerId));
  }

  /** New partitions: the first live replica leads, every live replica is in sync; none live leaves it for later. */
  private async initializePartitions(partitions: readonly TopicPartitionKey[]): Promise<TopicPartitionKey[]> {
    const entries: { topic: string; partition: number; state: LeaderAndIsrZk }[] = [];
    for (const p of partitions) {
      const live = this.ctx.replicas(p.topic, p.partition).filter(this.ctx.isLive);
      if (live.length === 0) continue;
      entries.push({ ...p, state: { leader: live[0]!, leaderEpoch: 0, isr: live, controllerEpoch: this.requireGuard().epoch } });
    }
    if (entries.length === 0) return [];
    try {
      await this.zk.createPartitionStates(this.requireGuard(), entries);
      for (const e of entries) this.ctx.leaderships.set(tpKey(e.topic, e.partition), { ...e.state, zkVersion: 0 });
    } catch (err) {
      if (err instanceof ControllerMovedError) throw err;
      // Some already have a state (written by an earlier controller): read what is there.
      for (const e of entries) {
        const stored = await this.zk.getPartitionState(e.topic, e.partition);
        if (stored !== null) this.ctx.leaderships.set(tpKey(e.topic, e.partition), { ...stored.state, zkVersion: stored.zkVersion });
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
  private async electOfflineLeaders(partitions: readonly TopicPartitionKey[], failed: ReadonlySet<number>): Promise<TopicPartitionKey[]> {
    const changed: TopicPartitionKey[] = [];
    for (const p of partitions) {
      const l = this.ctx.leadership(p.topic, p.partition);
      if (l === undefined) continue;
      // A replica on a failed log dir of a live broker has nothing to serve: never a leader.
      const candidate = (id: number): boolean => this.ctx.isLive(id) && !failed.has(id) && !this.ctx.isOnOfflineDir(id, p.topic, p.partition);
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
  private noteElection(p: TopicPartitionKey, before: PartitionLeadership, leader: number, kind: ElectionKind): void {
    const context = { topic: p.topic, partition: p.partition, oldLeader: before.leader, oldIsr: before.isr, leader, leaderEpoch: before.leaderEpoch + 1 };
    if (kind === 'eligible') this.log.info('leader elected from the eligible leader replicas (KIP-966)', context);
    else if (kind === 'unclean') {
      this.log.warn('unclean leader election: an out-of-sync replica leads, records the old ISR had may be lost', context);
      this.options.onUncleanElection();
    }
  }

  /** The topic's override of `key`, else this broker's value. */
  private async topicSetting(topic: string, key: string): Promise<string | null> {
    let overrides = this.ctx.topicOverrides.get(topic);
    if (overrides === undefined) {
      overrides = new Map(Object.entries(await this.zk.getEntityConfig('topics', topic)));
      this.ctx.topicOverrides.set(topic, overrides);
    }
    return overrides.get(key) ?? this.options.brokerSetting(key);
  }

  private async uncleanElectionEnabled(topic: string): Promise<boolean> {
    return (await this.topicSetting(topic, 'unclean.leader.election.enable'))?.toLowerCase() === 'true';
  }

  /** Kafka's effective `min.insync.replicas` of a partition: never more than its replicas, as its leader counts it. */
  private async effectiveMinIsr(p: TopicPartitionKey): Promise<number> {
    const configured = Number((await this.topicSetting(p.topic, 'min.insync.replicas')) ?? '1');
    return Math.min(configured, this.ctx.replicas(p.topic, p.partition).length);
  }

  /** Replicas on brokers that are gone leave the ISR of partitions that still have a leader. */
  private async dropDeadFromIsr(partitions: readonly TopicPartitionKey[], failed: ReadonlySet<number>): Promise<TopicPartitionKey[]> {
    const changed: TopicPartitionKey[] = [];
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
  private async writeLeadership(p: TopicPartitionKey, next: PartitionLeadership, bumpEpoch: boolean, kind: ElectionKind = 'isr'): Promise<PartitionLeadership | null> {
    const guard = this.requireGuard();
    const key = tpKey(p.topic, p.partition);
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
        const zkVersion = await this.zk.updatePartitionState(guard, p.topic, p.partition, state, current.zkVersion);
        const written = { ...state, zkVersion };
        this.ctx.leaderships.set(key, written);
        // After an unclean election the new leader's log is the truth: no one else is vouched for.
        const eligible = kind === 'unclean' ? [] : eligibleAfterIsrChange(this.ctx.eligible(p.topic, p.partition), current.isr, state.isr, minIsr);
        if (eligible.length > 0) this.ctx.eligibleLeaders.set(key, eligible);
        else this.ctx.eligibleLeaders.delete(key);
        return written;
      } catch (err) {
        if (!(err instanceof ZkBadVersionError)) throw err;
        const stored = await this.zk.getPartitionState(p.topic, p.partition);
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

  private sendLeaderAndIsr(brokerId: number, partitions: readonly TopicPartitionKey[], isNew: boolean): void {
    if (partitions.length === 0) return;
    const epoch = this.ctx.brokers.get(brokerId)?.epoch ?? -1n;
    const onStorageErrors = (offline: TopicPartitionKey[]): void => void this.enqueue('replicas offline', () => this.onReplicasOffline(brokerId, epoch, offline));
    this.channel.send(brokerId, 'LeaderAndIsr', leaderAndIsr(this.ctx, this.identity, brokerId, partitions, isNew, onStorageErrors));
  }

  private sendUpdateMetadata(brokers: readonly number[], partitions: readonly TopicPartitionKey[]): void {
    for (const id of brokers) this.channel.send(id, 'UpdateMetadata', updateMetadata(this.ctx, this.identity, id, partitions, this.ctx.deleting));
  }
}
