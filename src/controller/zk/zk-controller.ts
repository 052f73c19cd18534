/**
 * Kafka's ZooKeeper-era controller (`KafkaController`), run by every cluster member and active on
 * the one that wins the `/controller` znode. When active it reads the cluster from ZooKeeper,
 * watches brokers, topics and deletions, elects partition leaders, keeps the ISR (shrinking it
 * when a broker goes, as Kafka's offline-replica transition does), writes every change to the
 * partition state znodes under a check of the controller epoch's version, and then tells the
 * brokers: LeaderAndIsr to the replicas of the partitions that changed, UpdateMetadata to every
 * live broker. It answers AlterPartition (ISR changes asked by leaders) and ControlledShutdown.
 *
 * This class takes over and resigns, and turns ZooKeeper's watches and the brokers' requests into
 * events. Its parts: `ControllerEventQueue` runs the events one at a time in arrival order (a write
 * refused because another controller took over makes this one resign); `PartitionStateMachine`
 * elects, writes partition states and tells the brokers; `Reassignments` and `LeaderElections`
 * serve their requests on it. `ControllerContext` holds what the controller knows,
 * `ControllerSession` its ZooKeeper client and guard.
 */
import type { SaslCredentials } from '@sluice/client/sasl-client.js';
import { randomUuid } from '@sluice/protocol/common/uuid.js';
import type { Logger } from '../../common/logger.js';
import type { ClientTls } from '@sluice/protocol/common/tls-config.js';
import { type TopicPartition, topicPartitionKey } from '@sluice/protocol/common/topic-partition.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import type {
  ControllerPort,
  ElectionResult,
  IsrChangeAnswer,
  IsrChangeRequest,
  ReassignmentRequest,
  ReassignmentState,
} from '../../metadata/replica-control.js';
import type { KafkaZkClient, RegisteredBroker } from '../../zk/index.js';
import { ControllerChannel } from './controller-channel.js';
import { ControllerContext, endpointOf, type PartitionLeadership } from './controller-context.js';
import { ControllerEventQueue } from './controller-events.js';
import { ControllerSession } from './controller-session.js';
import { controlledShutdownElection, sameOrder, type Election } from './leader-election.js';
import { LeaderElections } from './leader-elections.js';
import { PartitionStateMachine } from './partition-state-machine.js';
import { Reassignments } from './reassignments.js';

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

const RETRY_BACKOFF_MS = 200;

export class ZkController implements ControllerPort {
  private readonly session: ControllerSession;
  private readonly ctx: ControllerContext;
  private readonly channel: ControllerChannel;
  private readonly events: ControllerEventQueue;
  private readonly states: PartitionStateMachine;
  private readonly reassignments: Reassignments;
  private readonly elections: LeaderElections;
  private rebalanceTimer: NodeJS.Timeout | null = null;

  constructor(
    zk: KafkaZkClient,
    private readonly options: ZkControllerOptions,
    private readonly log: Logger,
  ) {
    this.session = new ControllerSession(zk, options.brokerId);
    this.ctx = new ControllerContext(options.interBrokerListenerName);
    this.channel = new ControllerChannel(
      {
        requestTimeoutMs: options.requestTimeoutMs,
        retryBackoffMs: RETRY_BACKOFF_MS,
        clientId: `controller-${options.brokerId}`,
        tls: options.interBrokerTls,
        ...(options.sasl === undefined ? {} : { sasl: options.sasl }),
      },
      log,
    );
    this.events = new ControllerEventQueue(() => {
      this.resign();
      void this.events.enqueue('elect', () => this.elect());
    }, log);
    const replicasOffline = (brokerId: number, brokerEpoch: bigint, partitions: TopicPartition[]): void =>
      void this.events.enqueue('replicas offline', () => this.onReplicasOffline(brokerId, brokerEpoch, partitions));
    this.states = new PartitionStateMachine(this.ctx, this.session, this.channel, options, replicasOffline, log);
    this.reassignments = new Reassignments(this.ctx, this.session, this.states, log);
    this.elections = new LeaderElections(this.ctx, this.session, this.states, options.autoLeaderRebalance.perBrokerPercentage, log);
  }

  get isActive(): boolean {
    return this.session.isActive;
  }

  get epoch(): number {
    return this.session.epoch;
  }

  /** Competes for `/controller` now and whenever it is freed. */
  start(): void {
    // enqueue never rejects: it logs a failed event itself.
    void this.events.enqueue('elect', () => this.elect());
  }

  close(): void {
    this.events.close();
    this.resign();
  }

  /**
   * The member's ZooKeeper session expired and a new one replaced it: whatever this controller
   * was is void (its `/controller` znode went with the old session), so it resigns and competes
   * again over the new session.
   */
  replaceSession(zk: KafkaZkClient): void {
    void this.events.enqueue('session replaced', async () => {
      if (this.session.isActive) this.log.warn('the ZooKeeper session that made this broker controller expired; resigning');
      this.resign();
      this.session.replaceClient(zk);
      await this.elect();
    });
  }

  /** Runs a broker's request as a controller event (in order with the others) and answers with its result. */

  private async elect(): Promise<void> {
    if (this.session.isActive) return;
    const won = await this.session.zk.tryBecomeController(this.options.brokerId);
    if (won === null) {
      const current = await this.session.zk.getController(
        () => void this.events.enqueue('controller change', () => this.onControllerChange()),
      );
      // Freed between our attempt and the watch: try again rather than wait for a change that happened.
      if (current === null) void this.events.enqueue('elect', () => this.elect());
      return;
    }
    this.session.activate(won);
    this.log.info('became the controller', { epoch: won.epoch });
    await this.onBecomingController();
    const rebalance = this.options.autoLeaderRebalance;
    if (rebalance.enabled) {
      this.rebalanceTimer = setInterval(
        () => void this.events.enqueue('leader imbalance check', () => this.elections.checkImbalance()),
        rebalance.checkIntervalMs,
      );
      this.rebalanceTimer.unref();
    }
  }

  private async onControllerChange(): Promise<void> {
    const current = await this.session.zk.getController(
      () => void this.events.enqueue('controller change', () => this.onControllerChange()),
    );
    if (current !== this.options.brokerId && this.session.isActive) {
      this.log.warn('lost the controller znode; resigning', { now: current });
      this.resign();
    }
    if (current === null) await this.elect();
  }

  private resign(): void {
    if (this.rebalanceTimer !== null) clearInterval(this.rebalanceTimer);
    this.rebalanceTimer = null;
    this.session.deactivate();
    this.channel.close();
    this.ctx.clear();
  }

  // ---- taking over ---------------------------------------------------------------------------

  private async onBecomingController(): Promise<void> {
    await this.refreshBrokers();
    const topics = await this.session.zk.getTopics(() => void this.events.enqueue('topic change', () => this.onTopicChange()));
    for (const topic of topics) await this.loadTopic(topic);
    const all = [...this.ctx.partitions()];
    for (const p of all) {
      const stored = await this.session.zk.getPartitionState(p.topic, p.partition);
      if (stored !== null)
        this.ctx.leaderships.set(topicPartitionKey(p.topic, p.partition), { ...stored.state, zkVersion: stored.zkVersion });
    }
    await this.states.initializePartitions(all.filter((p) => this.ctx.leadership(p.topic, p.partition) === undefined));
    await this.states.electOfflineLeaders(
      all.filter((p) => !this.states.leaderAlive(p)),
      new Set(),
    );
    await this.states.dropDeadFromIsr(all, new Set());
    for (const id of this.ctx.brokers.keys()) this.states.sendLeaderAndIsr(id, this.states.hostedBy(id, all), false);
    this.states.sendUpdateMetadata([...this.ctx.brokers.keys()], all);
    await this.onTopicDeletion();
    await this.onLogDirEvent();
  }

  private async refreshBrokers(): Promise<{ added: number[]; removed: number[] }> {
    const registered = await this.session.zk.getBrokers(() => void this.events.enqueue('broker change', () => this.onBrokerChange()));
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
    let assignment = await this.session.zk.getTopicAssignment(
      topic,
      () => void this.events.enqueue(`partition change ${topic}`, () => this.onPartitionChange(topic)),
    );
    if (assignment === null) return false;
    let topicId = assignment.topicId;
    if (topicId === null) {
      // Written before topic ids (Kafka 2.8): the controller gives it one, as Kafka's does.
      topicId = randomUuid();
      const zkVersion = await this.session.zk.setTopicAssignment(
        topic,
        { ...assignment, topicId },
        assignment.zkVersion,
        this.session.requireGuard(),
      );
      assignment = { ...assignment, topicId, zkVersion };
    }
    this.ctx.topics.set(topic, { topicId, replicas: new Map(assignment.partitions), zkVersion: assignment.zkVersion });
    // Reassignments a previous controller started continue (KIP-455: the target is the replicas minus those being removed).
    for (const [partition, replicas] of assignment.partitions) {
      const adding = assignment.addingReplicas.get(partition) ?? [];
      const removing = assignment.removingReplicas.get(partition) ?? [];
      const key = topicPartitionKey(topic, partition);
      if (adding.length === 0 && removing.length === 0) this.ctx.reassignments.delete(key);
      else this.ctx.reassignments.set(key, { target: replicas.filter((r) => !removing.includes(r)), adding, removing });
    }
    return true;
  }

  // ---- events --------------------------------------------------------------------------------

  private async onBrokerChange(): Promise<void> {
    if (!this.session.isActive) return;
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
    const note = (ps: readonly TopicPartition[]): void => ps.forEach((p) => changed.add(topicPartitionKey(p.topic, p.partition)));
    note(await this.states.electOfflineLeaders(leaderless, restarted));
    note(await this.states.dropDeadFromIsr(all, restarted));
    note(
      await this.states.electOfflineLeaders(
        all.filter((p) => (this.ctx.leadership(p.topic, p.partition)?.leader ?? 0) < 0),
        new Set(),
      ),
    );
    note(await this.states.initializePartitions(all.filter((p) => this.ctx.leadership(p.topic, p.partition) === undefined)));
    const changedPartitions = all.filter((p) => changed.has(topicPartitionKey(p.topic, p.partition)));
    const live = [...this.ctx.brokers.keys()];
    // A new broker learns every partition it hosts; the others learn what changed.
    for (const id of live) this.states.sendLeaderAndIsr(id, this.states.hostedBy(id, added.includes(id) ? all : changedPartitions), false);
    // Every broker's cache holds the live brokers, which changed.
    this.states.sendUpdateMetadata(live, all);
    if (added.length > 0 && this.ctx.deleting.size > 0) await this.onTopicDeletion();
  }

  private async onTopicChange(): Promise<void> {
    if (!this.session.isActive) return;
    const topics = await this.session.zk.getTopics(() => void this.events.enqueue('topic change', () => this.onTopicChange()));
    const added = topics.filter((t) => !this.ctx.topics.has(t));
    for (const t of this.ctx.topics.keys()) if (!topics.includes(t)) this.ctx.removeTopic(t);
    const created: TopicPartition[] = [];
    for (const t of added) if (await this.loadTopic(t)) created.push(...this.ctx.partitionsOf(t));
    if (created.length === 0) return;
    this.log.info('topics created', { topics: added });
    await this.onNewPartitions(created);
  }

  private async onPartitionChange(topic: string): Promise<void> {
    if (!this.session.isActive) return;
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
    void this.events.enqueue(`topic config change ${topic}`, async () => {
      if (!this.session.isActive || !this.ctx.topics.has(topic)) return;
      const before = this.ctx.topicOverrides.get(topic);
      this.ctx.topicOverrides.set(topic, overrides);
      const partitions = this.ctx.partitionsOf(topic);
      if (before?.get('min.insync.replicas') !== overrides.get('min.insync.replicas'))
        for (const p of partitions) this.ctx.eligibleLeaders.delete(topicPartitionKey(p.topic, p.partition));
      if (!(await this.states.uncleanElectionEnabled(topic))) return;
      this.states.announce(
        await this.states.electOfflineLeaders(
          partitions.filter((p) => !this.states.leaderAlive(p)),
          new Set(),
        ),
      );
    });
  }

  private async onNewPartitions(partitions: readonly TopicPartition[]): Promise<void> {
    this.states.announce(await this.states.initializePartitions(partitions), true);
  }

  /**
   * Topic deletion (Kafka's `TopicDeletionManager`): clients stop seeing the topic at once
   * (UpdateMetadata names its partitions as being deleted), but the logs go only when every
   * replica can be told: while one of its brokers is down the deletion waits, and resumes when
   * that broker registers again, so no broker keeps a stray log of a deleted topic.
   */
  private async onTopicDeletion(): Promise<void> {
    if (!this.session.isActive) return;
    const marked = await this.session.zk.getTopicsToDelete(() => void this.events.enqueue('topic deletion', () => this.onTopicDeletion()));
    for (const topic of marked) {
      if (!this.ctx.topics.has(topic)) {
        await this.session.zk.deleteTopicZnodes(this.session.requireGuard(), topic);
        continue;
      }
      if (!this.options.deleteTopicEnable) {
        this.log.warn('topic deletion is disabled: the deletion mark is dropped', { topic });
        await this.session.zk.unmarkTopicForDeletion(this.session.requireGuard(), topic);
        continue;
      }
      const partitions = this.ctx.partitionsOf(topic);
      const firstSeen = !this.ctx.deleting.has(topic);
      this.ctx.deleting.add(topic);
      if (firstSeen) this.states.sendUpdateMetadata([...this.ctx.brokers.keys()], partitions);
      const down = [...new Set(partitions.flatMap((p) => this.ctx.replicas(p.topic, p.partition)))].filter(
        (id) => !this.ctx.isRegistered(id),
      );
      if (down.length > 0) {
        if (firstSeen) this.log.info('topic deletion waits for brokers hosting replicas', { topic, brokers: down });
        continue;
      }
      for (const id of this.ctx.brokers.keys()) {
        const hosted = this.states.hostedBy(id, partitions);
        if (hosted.length > 0) this.states.sendStopReplica(id, hosted, true);
      }
      await this.session.zk.deleteTopicZnodes(this.session.requireGuard(), topic);
      this.ctx.removeTopic(topic);
      this.log.info('topic deleted', { topic });
    }
  }

  // ---- requests from brokers -----------------------------------------------------------------

  /** AlterPartition: a leader's ISR change, checked against the partition's current epochs. */
  alterPartition(
    brokerId: number,
    brokerEpoch: bigint,
    items: readonly IsrChangeRequest[],
  ): Promise<{ errorCode: number; partitions: IsrChangeAnswer[] }> {
    return this.events.ask('alter partition', () => this.applyAlterPartition(brokerId, brokerEpoch, items));
  }

  private async applyAlterPartition(
    brokerId: number,
    brokerEpoch: bigint,
    items: readonly IsrChangeRequest[],
  ): Promise<{ errorCode: number; partitions: IsrChangeAnswer[] }> {
    if (!this.session.isActive) return { errorCode: ErrorCode.NOT_CONTROLLER, partitions: [] };
    const broker = this.ctx.brokers.get(brokerId);
    if (broker === undefined || (brokerEpoch !== -1n && brokerEpoch < broker.epoch))
      return { errorCode: ErrorCode.STALE_BROKER_EPOCH, partitions: [] };
    const answers: IsrChangeAnswer[] = [];
    const changed: TopicPartition[] = [];
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
      else if (
        item.newIsr.some((id) => !this.ctx.isLive(id) && id !== brokerId) ||
        !item.newIsr.every((id) => this.ctx.replicas(item.topic, item.partition).includes(id))
      ) {
        answers.push(answer(ErrorCode.INELIGIBLE_REPLICA));
      } else {
        const next = await this.states.writeLeadership(item, { ...current, isr: item.newIsr }, false);
        if (next === null) answers.push(answer(ErrorCode.INVALID_UPDATE_VERSION));
        else {
          changed.push(item);
          answers.push(answer(ErrorCode.NONE, next));
        }
      }
    }
    for (const p of changed) await this.reassignments.maybeComplete(p);
    if (changed.length > 0) {
      this.log.info('ISR changed', {
        broker: brokerId,
        partitions: changed.map((p) => `${p.topic}-${p.partition}:[${this.ctx.leadership(p.topic, p.partition)!.isr.join(',')}]`),
      });
      this.states.sendUpdateMetadata([...this.ctx.brokers.keys()], changed);
    }
    return { errorCode: ErrorCode.NONE, partitions: answers };
  }

  /**
   * ControlledShutdown: the broker's leaderships move to other in-sync replicas and it leaves the
   * ISRs it is in; answers the partitions it still leads (no other replica could take over).
   */
  controlledShutdown(brokerId: number, brokerEpoch: bigint): Promise<{ errorCode: number; remaining: TopicPartition[] }> {
    return this.events.ask('controlled shutdown', () => this.applyControlledShutdown(brokerId, brokerEpoch));
  }

  private async applyControlledShutdown(
    brokerId: number,
    brokerEpoch: bigint,
  ): Promise<{ errorCode: number; remaining: TopicPartition[] }> {
    if (!this.session.isActive) return { errorCode: ErrorCode.NOT_CONTROLLER, remaining: [] };
    const broker = this.ctx.brokers.get(brokerId);
    if (broker === undefined) return { errorCode: ErrorCode.BROKER_NOT_AVAILABLE, remaining: [] };
    if (brokerEpoch !== -1n && brokerEpoch < broker.epoch) return { errorCode: ErrorCode.STALE_BROKER_EPOCH, remaining: [] };
    this.ctx.shuttingDown.add(brokerId);
    const hosted = this.states.hostedBy(brokerId, [...this.ctx.partitions()]);
    const changed: TopicPartition[] = [];
    const stopped: TopicPartition[] = [];
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
      if ((await this.states.writeLeadership(p, { ...l, leader: election.leader, isr: election.isr }, true)) !== null) changed.push(p);
    }
    for (const id of this.ctx.brokers.keys())
      if (id !== brokerId) this.states.sendLeaderAndIsr(id, this.states.hostedBy(id, changed), false);
    if (stopped.length > 0) this.states.sendStopReplica(brokerId, stopped, false);
    this.states.sendUpdateMetadata([...this.ctx.brokers.keys()], changed);
    const remaining = hosted.filter((p) => this.ctx.leadership(p.topic, p.partition)?.leader === brokerId);
    this.log.info('controlled shutdown', { broker: brokerId, moved: changed.length, remaining: remaining.length });
    return { errorCode: ErrorCode.NONE, remaining };
  }

  /** ElectLeaders (Kafka's preferred and unclean elections), answered per partition. */
  /** ElectLeaders (Kafka's preferred and unclean elections), answered per partition. */
  electLeaders(
    electionType: number,
    partitions: readonly TopicPartition[] | null,
  ): Promise<{ errorCode: number; results: ElectionResult[] }> {
    return this.events.ask('elect leaders', () => this.elections.elect(electionType, partitions));
  }

  /** AlterPartitionReassignments (KIP-455): see `Reassignments`. */
  alterReassignments(items: readonly ReassignmentRequest[]): Promise<ElectionResult[]> {
    return this.events.ask('alter reassignments', () => this.reassignments.alter(items));
  }

  /** ListPartitionReassignments: those in progress, of `partitions` or of all. */
  /** ListPartitionReassignments: those in progress, of `partitions` or of all. */
  listReassignments(partitions: readonly TopicPartition[] | null): Promise<{ errorCode: number; reassignments: ReassignmentState[] }> {
    return this.events.ask('list reassignments', async () => this.reassignments.list(partitions));
  }

  /** LeaderAndIsr to the replicas of the changed partitions, UpdateMetadata to every live broker. */

  // ---- log dir failures ----------------------------------------------------------------------

  /**
   * Log dir event notifications (Kafka's `processLogDirEventNotification`): each names a broker
   * a log dir of which failed. The controller deletes them and sends that broker LeaderAndIsr for
   * all its replicas (`onBrokerLogDirFailure`); the broker's KAFKA_STORAGE_ERROR answers say which
   * replicas are offline (`onReplicasOffline`).
   */
  private async onLogDirEvent(): Promise<void> {
    if (!this.session.isActive) return;
    const names = await this.session.zk.getLogDirEventNotifications(
      () => void this.events.enqueue('log dir event', () => this.onLogDirEvent()),
    );
    if (names.length === 0) return;
    const brokers = new Set(await this.session.zk.getLogDirEventBrokers(names));
    await this.session.zk.deleteLogDirEventNotifications(this.session.requireGuard(), names);
    const all = [...this.ctx.partitions()];
    for (const id of brokers) {
      if (!this.ctx.isRegistered(id)) continue;
      this.log.warn('a log dir of a broker failed; asking it about all its replicas', { broker: id });
      this.states.sendLeaderAndIsr(id, this.states.hostedBy(id, all), false);
    }
  }

  /**
   * Replicas a broker answered KAFKA_STORAGE_ERROR for (Kafka's `onReplicasBecomeOffline`): offline
   * until that registration of the broker ends, so the partitions they led elect another in-sync
   * replica, they leave the ISRs, and every broker's metadata lists them as offline replicas.
   */
  private async onReplicasOffline(brokerId: number, brokerEpoch: bigint, partitions: readonly TopicPartition[]): Promise<void> {
    // An answer from an earlier registration says nothing about the broker's current dirs.
    if (!this.session.isActive || this.ctx.brokers.get(brokerId)?.epoch !== brokerEpoch) return;
    const offline = this.ctx.offlineDirReplicas.get(brokerId) ?? new Set<string>();
    const fresh = partitions.filter(
      (p) => !offline.has(topicPartitionKey(p.topic, p.partition)) && this.ctx.leadership(p.topic, p.partition) !== undefined,
    );
    if (fresh.length === 0) return;
    for (const p of fresh) offline.add(topicPartitionKey(p.topic, p.partition));
    this.ctx.offlineDirReplicas.set(brokerId, offline);
    this.log.warn('replicas on a failed log dir are offline', {
      broker: brokerId,
      partitions: fresh.map((p) => `${p.topic}-${p.partition}`),
    });
    const failed = new Set([brokerId]);
    const led = fresh.filter((p) => this.ctx.leadership(p.topic, p.partition)?.leader === brokerId);
    const changed = new Set(
      [...(await this.states.electOfflineLeaders(led, failed)), ...(await this.states.dropDeadFromIsr(fresh, failed))].map((p) =>
        topicPartitionKey(p.topic, p.partition),
      ),
    );
    const changedPartitions = fresh.filter((p) => changed.has(topicPartitionKey(p.topic, p.partition)));
    for (const id of this.ctx.brokers.keys())
      if (id !== brokerId) this.states.sendLeaderAndIsr(id, this.states.hostedBy(id, changedPartitions), false);
    // Their offline replicas changed even where the leadership did not.
    this.states.sendUpdateMetadata([...this.ctx.brokers.keys()], fresh);
  }

  // ---- state changes -------------------------------------------------------------------------

  /** New partitions: the first live replica leads, every live replica is in sync; none live leaves it for later. */

  /** The topic's override of `key`, else this broker's value. */

  /** Kafka's effective `min.insync.replicas` of a partition: never more than its replicas, as its leader counts it. */

  /** Replicas on brokers that are gone leave the ISR of partitions that still have a leader. */
}
