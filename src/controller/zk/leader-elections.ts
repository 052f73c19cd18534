/**
 * Leader elections asked for (ElectLeaders: preferred and unclean, answered per partition) and the
 * automatic preferred-leader rebalance (`auto.leader.rebalance.enable`). Runs inside the
 * controller's events.
 */
import type { Logger } from '../../common/logger.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { ElectionType, type ElectionResult } from '../../metadata/replica-control.js';
import type { ControllerContext } from './controller-context.js';
import type { ControllerSession } from './controller-session.js';
import { offlineElection, preferredElection, type Election, type ElectionKind } from './leader-election.js';
import type { PartitionStateMachine } from './partition-state-machine.js';
import type { TopicPartition } from '@sluice/protocol/common/topic-partition.js';

export class LeaderElections {
  constructor(
    private readonly ctx: ControllerContext,
    private readonly session: ControllerSession,
    private readonly states: PartitionStateMachine,
    /** `leader.imbalance.per.broker.percentage`. */
    private readonly perBrokerPercentage: number,
    private readonly log: Logger,
  ) {}

  /** ElectLeaders (Kafka's preferred and unclean elections), answered per partition. */
  async elect(electionType: number, asked: readonly TopicPartition[] | null): Promise<{ errorCode: number; results: ElectionResult[] }> {
    if (!this.session.isActive) return { errorCode: ErrorCode.NOT_CONTROLLER, results: [] };
    const partitions = asked ?? [...this.ctx.partitions()];
    const results: ElectionResult[] = [];
    const changed: TopicPartition[] = [];
    for (const p of partitions) {
      const result = (errorCode: number, errorMessage: string | null = null): ElectionResult => ({
        topic: p.topic,
        partition: p.partition,
        errorCode,
        errorMessage,
      });
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
          results.push(
            result(
              ErrorCode.PREFERRED_LEADER_NOT_AVAILABLE,
              `Failed to elect leader for partition ${p.topic}-${p.partition} under strategy PreferredReplicaPartitionLeaderElectionStrategy`,
            ),
          );
          continue;
        }
      } else if (electionType === ElectionType.UNCLEAN) {
        if (l.leader >= 0 && this.ctx.isLive(l.leader)) {
          results.push(result(ErrorCode.ELECTION_NOT_NEEDED, 'Leader election not needed for topic partition.'));
          continue;
        }
        const offline = offlineElection(replicas, l.isr, this.ctx.eligible(p.topic, p.partition), this.ctx.isLive, true);
        if (offline === null) {
          results.push(
            result(
              ErrorCode.ELIGIBLE_LEADERS_NOT_AVAILABLE,
              `Failed to elect leader for partition ${p.topic}-${p.partition} under strategy OfflinePartitionLeaderElectionStrategy(true)`,
            ),
          );
          continue;
        }
        election = offline;
        kind = offline.kind;
      } else {
        results.push(result(ErrorCode.INVALID_REQUEST, `Unknown election type ${electionType}`));
        continue;
      }
      if ((await this.states.writeLeadership(p, { ...l, leader: election.leader, isr: election.isr }, true, kind)) === null) {
        results.push(result(ErrorCode.NOT_CONTROLLER, 'the partition state changed meanwhile'));
        continue;
      }
      this.states.noteElection(p, l, election.leader, kind);
      changed.push(p);
      results.push(result(ErrorCode.NONE));
    }
    this.states.announce(changed);
    // Asked for everything, Kafka answers only what it elected or failed to.
    return {
      errorCode: ErrorCode.NONE,
      results: asked === null ? results.filter((r) => r.errorCode !== ErrorCode.ELECTION_NOT_NEEDED) : results,
    };
  }

  /**
   * `auto.leader.rebalance.enable`: a broker leading too few of the partitions it is the
   * preferred replica of (more than `leader.imbalance.per.broker.percentage` led elsewhere) gets
   * them back, where it is alive and in sync (Kafka's `checkAndTriggerAutoLeaderRebalance`).
   */
  async checkImbalance(): Promise<void> {
    if (!this.session.isActive) return;
    const byPreferred = new Map<number, TopicPartition[]>();
    for (const p of this.ctx.partitions()) {
      const preferred = this.ctx.replicas(p.topic, p.partition)[0];
      if (preferred === undefined) continue;
      byPreferred.set(preferred, [...(byPreferred.get(preferred) ?? []), p]);
    }
    const toElect: TopicPartition[] = [];
    for (const [broker, preferredOf] of byPreferred) {
      if (!this.ctx.isLive(broker)) continue;
      const notLed = preferredOf.filter((p) => this.ctx.leadership(p.topic, p.partition)?.leader !== broker);
      const ratio = (notLed.length * 100) / preferredOf.length;
      if (ratio > this.perBrokerPercentage) toElect.push(...notLed);
    }
    if (toElect.length === 0) return;
    const { results } = await this.elect(ElectionType.PREFERRED, toElect);
    this.log.info('leader imbalance: preferred leaders elected', {
      elected: results.filter((r) => r.errorCode === ErrorCode.NONE).length,
      asked: toElect.length,
    });
  }
}
