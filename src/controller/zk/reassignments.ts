/**
 * Partition reassignments (KIP-455, as Kafka's ZooKeeper controller runs them): a partition's
 * replicas become the target plus the original ones, the new replicas start following (a new
 * leader epoch tells every replica), and once every target replica is in the ISR the reassignment
 * completes. A null target cancels one in progress. The adding and removing replicas are kept in
 * the topic's assignment znode, so a new controller continues what an old one started. Runs
 * inside the controller's events.
 */
import type { Logger } from '../../common/logger.js';
import { type TopicPartition, topicPartitionKey } from '@sluice/protocol/common/topic-partition.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import type { ElectionResult, ReassignmentRequest, ReassignmentState } from '../../metadata/replica-control.js';
import type { ControllerContext } from './controller-context.js';
import type { ControllerSession } from './controller-session.js';
import type { PartitionStateMachine } from './partition-state-machine.js';
import { sameOrder } from './leader-election.js';

export class Reassignments {
  constructor(
    private readonly ctx: ControllerContext,
    private readonly session: ControllerSession,
    private readonly states: PartitionStateMachine,
    private readonly log: Logger,
  ) {}

  /**
   * AlterPartitionReassignments (KIP-455, as Kafka's ZooKeeper controller runs it): the partition's
   * replicas become the target plus the original ones, the new replicas start following (a new
   * leader epoch tells every replica), and once every target replica is in the ISR the
   * reassignment completes (`maybeComplete`). A null target cancels one in progress.
   */
  async alter(items: readonly ReassignmentRequest[]): Promise<ElectionResult[]> {
    const results: ElectionResult[] = [];
    for (const item of items) {
      const result = (errorCode: number, errorMessage: string | null = null): ElectionResult => ({
        topic: item.topic,
        partition: item.partition,
        errorCode,
        errorMessage,
      });
      if (!this.session.isActive) {
        results.push(result(ErrorCode.NOT_CONTROLLER));
        continue;
      }
      const key = topicPartitionKey(item.topic, item.partition);
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
      if ((await this.states.writeLeadership(item, { ...l }, true)) !== null) {
        for (const id of replicas) this.states.sendLeaderAndIsr(id, [item], adding.includes(id));
        this.states.sendUpdateMetadata([...this.ctx.brokers.keys()], [item]);
      }
      await this.maybeComplete(item);
      this.log.info('reassignment started', { topic: item.topic, partition: item.partition, target, adding, removing });
      results.push(result(ErrorCode.NONE));
    }
    return results;
  }

  /** ListPartitionReassignments: those in progress, of `partitions` or of all. */
  list(partitions: readonly TopicPartition[] | null): { errorCode: number; reassignments: ReassignmentState[] } {
    if (!this.session.isActive) return { errorCode: ErrorCode.NOT_CONTROLLER, reassignments: [] };
    const wanted = partitions === null ? null : new Set(partitions.map((p) => topicPartitionKey(p.topic, p.partition)));
    const reassignments: ReassignmentState[] = [];
    for (const p of this.ctx.partitions()) {
      const r = this.ctx.reassignments.get(topicPartitionKey(p.topic, p.partition));
      if (r === undefined || (wanted !== null && !wanted.has(topicPartitionKey(p.topic, p.partition)))) continue;
      reassignments.push({ ...p, replicas: this.ctx.replicas(p.topic, p.partition), adding: r.adding, removing: r.removing });
    }
    return { errorCode: ErrorCode.NONE, reassignments };
  }

  /**
   * Finishes a reassignment whose target replicas are all in the ISR: the replicas become the
   * target, a leader outside it (or gone) hands over to the first live in-sync target replica,
   * the removed replicas leave the ISR and delete their logs, and the assignment znode loses its
   * adding/removing entries.
   */
  async maybeComplete(p: TopicPartition): Promise<void> {
    const key = topicPartitionKey(p.topic, p.partition);
    const r = this.ctx.reassignments.get(key);
    const l = this.ctx.leadership(p.topic, p.partition);
    if (r === undefined || l === undefined || !r.target.every((id) => l.isr.includes(id))) return;
    const isr = l.isr.filter((id) => r.target.includes(id));
    const leader =
      r.target.includes(l.leader) && this.ctx.isLive(l.leader) ? l.leader : r.target.find((id) => this.ctx.isLive(id) && isr.includes(id));
    if (leader === undefined) return;
    this.ctx.topics.get(p.topic)!.replicas.set(p.partition, [...r.target]);
    this.ctx.reassignments.delete(key);
    if ((await this.states.writeLeadership(p, { ...l, leader, isr }, true)) === null) return;
    await this.writeAssignment(p.topic);
    for (const id of r.target) this.states.sendLeaderAndIsr(id, [p], false);
    for (const id of r.removing) if (this.ctx.isRegistered(id)) this.states.sendStopReplica(id, [p], true);
    this.states.sendUpdateMetadata([...this.ctx.brokers.keys()], [p]);
    this.log.info('reassignment completed', { topic: p.topic, partition: p.partition, replicas: r.target, leader });
  }

  private targetProblem(target: readonly number[]): string | null {
    if (target.length === 0) return 'The replica list must not be empty.';
    if (new Set(target).size !== target.length) return `Duplicate replica assignment: ${target.join(', ')}.`;
    const unknown = target.filter((id) => !this.ctx.isRegistered(id));
    return unknown.length > 0 ? `The proposed assignment contains non-live brokers: ${unknown.join(', ')}.` : null;
  }

  private async writeAssignment(topic: string): Promise<void> {
    const t = this.ctx.topics.get(topic)!;
    const adding = new Map<number, readonly number[]>();
    const removing = new Map<number, readonly number[]>();
    for (const partition of t.replicas.keys()) {
      const r = this.ctx.reassignments.get(topicPartitionKey(topic, partition));
      if (r === undefined) continue;
      if (r.adding.length > 0) adding.set(partition, r.adding);
      if (r.removing.length > 0) removing.set(partition, r.removing);
    }
    t.zkVersion = await this.session.zk.setTopicAssignment(
      topic,
      { topicId: t.topicId, partitions: t.replicas, addingReplicas: adding, removingReplicas: removing },
      t.zkVersion,
      this.session.requireGuard(),
    );
  }
}
