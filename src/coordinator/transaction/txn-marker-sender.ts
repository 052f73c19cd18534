/**
 * Writes the markers of transactions in Prepare* to their partitions, as Kafka's
 * `TransactionMarkerChannelManager` does: each job goes to the `TxnMarkerWriter` port (which routes
 * WriteTxnMarkers to the partition leaders) until every partition has it, then `onWritten` lets the
 * coordinator append Complete*. Per partition:
 * - NONE: written;
 * - UNKNOWN_TOPIC_OR_PARTITION (the topic was deleted), UNSUPPORTED_FOR_MESSAGE_FORMAT: dropped, as
 *   Kafka does — no producer could have written there;
 * - INVALID_PRODUCER_EPOCH, TRANSACTION_COORDINATOR_FENCED: a newer coordinator or producer epoch
 *   owns the partition; this coordinator stops sending (the transaction stays Prepare* here);
 * - anything else (NOT_LEADER_OR_FOLLOWER, NOT_ENOUGH_REPLICAS, COORDINATOR_LOAD_IN_PROGRESS, a
 *   timeout, a failed call...): written again after a backoff.
 * A job stops when this broker no longer coordinates its `__transaction_state` partition, and the
 * same transaction is never sent twice at once. Main thread.
 */
import type { Logger } from '../../common/logger.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import type { MarkerJob } from './transaction-coordinator.js';
import { type TopicPartition, topicPartitionKey } from '@sluice/protocol/common/topic-partition.js';

/** The port to the partition leaders. */
export interface TxnMarkerWriter {
  /** Writes one transaction's end to each partition (once committed there); per-partition error codes, NONE when done. */
  write(marker: {
    producerId: bigint;
    producerEpoch: number;
    coordinatorEpoch: number;
    commit: boolean;
    transactionVersion: number;
    partitions: readonly TopicPartition[];
  }): Promise<Array<TopicPartition & { errorCode: number }>>;
}

/** A marker job as dispatched: where its transaction lives and at which coordinator epoch. */
export interface DispatchedMarkers extends MarkerJob {
  readonly txnPartition: number;
  readonly coordinatorEpoch: number;
}

export interface TxnMarkerSenderOptions {
  readonly writer: TxnMarkerWriter;
  readonly retryBackoffMs: number;
  /** Whether this broker still coordinates `__transaction_state` partition `txnPartition`. */
  readonly coordinates: (txnPartition: number) => boolean;
  readonly onWritten: (job: DispatchedMarkers) => void;
  readonly logger: Logger;
}

type Outcome = 'written' | 'dropped' | 'fenced' | 'retry';

function outcomeOf(errorCode: number): Outcome {
  switch (errorCode) {
    case ErrorCode.NONE:
      return 'written';
    case ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
    case ErrorCode.UNSUPPORTED_FOR_MESSAGE_FORMAT:
      return 'dropped';
    case ErrorCode.INVALID_PRODUCER_EPOCH:
    case ErrorCode.TRANSACTION_COORDINATOR_FENCED:
      return 'fenced';
    default:
      return 'retry';
  }
}

class Sending {
  cancelled = false;
  private timer: NodeJS.Timeout | null = null;
  private wake: (() => void) | null = null;

  constructor(readonly job: DispatchedMarkers) {}

  backoff(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.wake = resolve;
      this.timer = setTimeout(resolve, ms);
      this.timer.unref();
    });
  }

  cancel(): void {
    this.cancelled = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.wake?.();
  }
}

export class TxnMarkerSender {
  private readonly sending = new Map<string, Sending>();
  private closed = false;

  constructor(private readonly options: TxnMarkerSenderOptions) {}

  send(job: DispatchedMarkers): void {
    const key = `${job.transactionalId}\u0000${job.producerId}\u0000${job.producerEpoch}`;
    // A cancelled sending may still await its last write (leadership came back meanwhile): replaced, not joined.
    if (this.closed || this.sending.get(key)?.cancelled === false) return;
    const sending = new Sending(job);
    this.sending.set(key, sending);
    this.run(sending)
      .catch((err: unknown) =>
        this.options.logger.error('writing transaction markers failed', { transactionalId: job.transactionalId, error: String(err) }),
      )
      .finally(() => {
        if (this.sending.get(key) === sending) this.sending.delete(key);
      });
  }

  /** Stops the jobs of a `__transaction_state` partition this broker gave up. */
  cancelPartition(txnPartition: number): void {
    for (const s of this.sending.values()) if (s.job.txnPartition === txnPartition) s.cancel();
  }

  close(): void {
    this.closed = true;
    for (const s of this.sending.values()) s.cancel();
  }

  private active(s: Sending): boolean {
    return !this.closed && !s.cancelled && this.options.coordinates(s.job.txnPartition);
  }

  private async run(s: Sending): Promise<void> {
    const { job } = s;
    let remaining = job.partitions;
    while (remaining.length > 0) {
      if (!this.active(s)) return;
      const codes = await this.write(job, remaining);
      const retry: TopicPartition[] = [];
      for (const tp of remaining) {
        // A partition the answer leaves out is written again.
        const errorCode = codes.get(topicPartitionKey(tp.topic, tp.partition)) ?? ErrorCode.REQUEST_TIMED_OUT;
        switch (outcomeOf(errorCode)) {
          case 'written':
            break;
          case 'dropped':
            this.options.logger.info('transaction marker dropped: the partition is gone', {
              transactionalId: job.transactionalId,
              topic: tp.topic,
              partition: tp.partition,
              errorCode,
            });
            break;
          case 'fenced':
            this.options.logger.warn('transaction markers stopped: a newer coordinator or producer epoch owns the partition', {
              transactionalId: job.transactionalId,
              topic: tp.topic,
              partition: tp.partition,
              errorCode,
            });
            return;
          case 'retry':
            retry.push(tp);
        }
      }
      remaining = retry;
      if (remaining.length > 0) await s.backoff(this.options.retryBackoffMs);
    }
    if (this.active(s)) this.options.onWritten(job);
  }

  private async write(job: DispatchedMarkers, partitions: readonly TopicPartition[]): Promise<Map<string, number>> {
    try {
      const results = await this.options.writer.write({
        producerId: job.producerId,
        producerEpoch: job.producerEpoch,
        coordinatorEpoch: job.coordinatorEpoch,
        commit: job.commit,
        transactionVersion: job.transactionVersion,
        partitions,
      });
      return new Map(results.map((r) => [topicPartitionKey(r.topic, r.partition), r.errorCode]));
    } catch (err) {
      this.options.logger.warn('writing transaction markers failed; retrying', {
        transactionalId: job.transactionalId,
        error: String(err),
      });
      return new Map();
    }
  }
}
