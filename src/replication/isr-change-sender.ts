/**
 * Carries the ISR changes this broker's leaderships decide to the controller (Kafka's
 * `AlterPartitionManager`): every `replica.lag.time.max.ms / 2` (Kafka's ISR expiration period)
 * the workers' proposals (`ReplicaLogs.isrProposals`) go out in one AlterPartition, and a proposal
 * a follower's fetch brought (`offer`: its leader made it while serving the fetch) goes at once;
 * the controller's answers (the committed ISR and partition epoch, or an error that drops the
 * proposal) go back to the workers. One request in flight at a time, so each
 * partition has at most one change pending, as Kafka requires.
 */
import type { Logger } from '../common/logger.js';
import { groupBy } from '@sluice/protocol/common/group-by.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { AlterPartitionRequest, AlterPartitionResponse } from '@sluice/protocol/messages/index.js';
import type { MetadataSource } from '../metadata/metadata-image.js';
import type { IsrChangeRequest } from '../metadata/replica-control.js';
import type { ControllerClient } from '../interbroker/controller-client.js';
import type { ReplicaLogs } from './replica-logs.js';
import type { IsrAnswer } from './partition-state.js';
import { topicPartitionKey } from '@sluice/protocol/common/topic-partition.js';

/** The controller's answer (`committed`: its state, or an error for the partition) to `proposal`. */
function answer(proposal: IsrChangeRequest, committed: Pick<IsrAnswer, 'errorCode' | 'leaderEpoch' | 'partitionEpoch' | 'isr'>): IsrAnswer {
  return {
    topic: proposal.topic,
    partition: proposal.partition,
    proposedLeaderEpoch: proposal.leaderEpoch,
    proposedPartitionEpoch: proposal.partitionEpoch,
    errorCode: committed.errorCode,
    leaderEpoch: committed.leaderEpoch,
    partitionEpoch: committed.partitionEpoch,
    isr: committed.isr,
  };
}

function failed(proposal: IsrChangeRequest, errorCode: number): IsrAnswer {
  return answer(proposal, { errorCode, leaderEpoch: proposal.leaderEpoch, partitionEpoch: proposal.partitionEpoch, isr: proposal.newIsr });
}

export class IsrChangeSender {
  private timer: NodeJS.Timeout | null = null;
  private running = false;
  private again = false;
  /** Proposals already made by their leaders, to send with the next request. */
  private offered: IsrChangeRequest[] = [];
  /** The next request asks the workers for their proposals too (the timer's turn). */
  private askWorkers = false;

  constructor(
    private readonly brokerId: number,
    private readonly brokerEpoch: () => bigint,
    private readonly logs: ReplicaLogs,
    private readonly controller: ControllerClient,
    private readonly metadata: MetadataSource,
    private readonly intervalMs: number,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.trigger(), this.intervalMs);
    this.timer.unref();
  }

  /** Asks the workers for their proposals and sends them now (or right after the request in flight). */
  private trigger(): void {
    this.send(true);
  }

  /** A proposal its leader made already (pending there): sent now, or right after the request in flight. */
  offer(proposal: IsrChangeRequest): void {
    this.offered.push(proposal);
    this.send(false);
  }

  private send(askWorkers: boolean): void {
    this.askWorkers ||= askWorkers;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    const ask = this.askWorkers;
    this.askWorkers = false;
    void this.sendOnce(ask)
      .catch((err: unknown) => this.log.warn('sending ISR changes failed', { error: (err as Error).message }))
      .finally(() => {
        this.running = false;
        if (this.again) {
          this.again = false;
          this.send(false);
        }
      });
  }

  private async sendOnce(askWorkers: boolean): Promise<void> {
    const offered = this.offered;
    this.offered = [];
    const proposals = askWorkers ? [...offered, ...(await this.logs.isrProposals())] : offered;
    if (proposals.length === 0) return;
    let outcomes: IsrAnswer[];
    try {
      outcomes = await this.request(proposals);
    } catch (err) {
      // Unanswered, each proposal is answered with a retriable error, so its worker proposes it again.
      await this.logs.applyIsrAnswers(proposals.map((p) => failed(p, ErrorCode.NETWORK_EXCEPTION)));
      throw err;
    }
    // A refusal can leave a partition's change pending until the controller's next state: said
    // here, a partition that never changes its ISR again can be traced.
    outcomes.forEach((o, i) => {
      if (o.errorCode === ErrorCode.NONE) return;
      const proposal = proposals[i]!;
      this.log.warn('the controller refused an ISR change', {
        topic: proposal.topic,
        partition: proposal.partition,
        errorCode: o.errorCode,
        proposedIsr: proposal.newIsr,
        leaderEpoch: proposal.leaderEpoch,
        partitionEpoch: proposal.partitionEpoch,
      });
    });
    await this.logs.applyIsrAnswers(outcomes);
  }

  private async request(proposals: readonly IsrChangeRequest[]): Promise<IsrAnswer[]> {
    const connection = await this.controller.connect();
    const image = this.metadata.image;
    const byTopic = groupBy(proposals, (p) => p.topic);
    const response = await connection.request(AlterPartitionRequest, AlterPartitionResponse, (version) => ({
      brokerId: this.brokerId,
      brokerEpoch: this.brokerEpoch(),
      topics: [...byTopic].map(([topic, ps]) => ({
        topicId: image.topic(topic)?.topicId,
        partitions: ps.map((p) => ({
          partitionIndex: p.partition,
          leaderEpoch: p.leaderEpoch,
          partitionEpoch: p.partitionEpoch,
          ...(version >= 3 ? { newIsrWithEpochs: p.newIsr.map((id) => ({ brokerId: id, brokerEpoch: -1n })) } : { newIsr: [...p.newIsr] }),
        })),
      })),
    }));
    if (response.errorCode !== ErrorCode.NONE) return proposals.map((p) => failed(p, response.errorCode));
    const answered = new Map<string, { errorCode: number; leaderEpoch: number; partitionEpoch: number; isr: number[] }>();
    for (const t of response.topics) {
      const topic = image.topicById(t.topicId)?.name;
      if (topic === undefined) continue;
      for (const p of t.partitions)
        answered.set(topicPartitionKey(topic, p.partitionIndex), {
          errorCode: p.errorCode,
          leaderEpoch: p.leaderEpoch,
          partitionEpoch: p.partitionEpoch,
          isr: p.isr,
        });
    }
    return proposals.map((p) => {
      const a = answered.get(topicPartitionKey(p.topic, p.partition));
      return a === undefined ? failed(p, ErrorCode.UNKNOWN_SERVER_ERROR) : answer(p, a);
    });
  }

  close(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.controller.close();
  }
}
