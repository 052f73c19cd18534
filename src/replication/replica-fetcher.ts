/**
 * One follower fetch loop (Kafka's `ReplicaFetcherThread`, as an async loop on the main thread):
 * for the partitions this broker follows from one leader, it sends Kafka's Fetch with this
 * broker's replica id and each partition's log end offset and last fetched epoch, hands the
 * returned batches to the owning workers in one message per worker (they keep offsets and
 * epochs and check CRCs), and carries the leader's high watermark to the follower. A diverging
 * epoch in the answer truncates the follower to where its log and the leader's agree (KIP-320,
 * KIP-595's fetch-time divergence check). Errors back the partition (or the whole leader, for a
 * connection failure) off for `replica.fetch.backoff.ms`; the controller's next LeaderAndIsr
 * moves a partition to another leader.
 */
import type { ClientTls } from '@sluice/protocol/common/tls-config.js';
import { KafkaConnection } from '@sluice/client/connection.js';
import type { SaslCredentials } from '@sluice/client/sasl-client.js';
import type { Logger } from '../common/logger.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { READ_UNCOMMITTED } from '@sluice/protocol/offset-requests.js';
import { FetchRequest, FetchResponse, type FetchRequestFetchTopicInput } from '@sluice/protocol/messages/index.js';
import type { FollowerAppendRequest, ReplicaLogs, ReplicaPositionReply, TruncationKind } from './replica-logs.js';
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { type TopicPartition, topicPartitionKey } from '@sluice/protocol/common/topic-partition.js';
import { leaderEpochOf, NO_EPOCH, offsetOf, wireOffset, type LeaderEpoch, type Offset } from '@sluice/protocol/common/offsets.js';

export interface FetcherSettings {
  readonly brokerId: number;
  readonly brokerEpoch: () => bigint;
  readonly maxWaitMs: number;
  readonly minBytes: number;
  readonly maxBytes: number;
  readonly partitionMaxBytes: number;
  readonly backoffMs: number;
  readonly requestTimeoutMs: number;
  /** How to authenticate when the inter-broker listener is a SASL one. */
  readonly sasl?: SaslCredentials;
  /** The inter-broker listener's TLS, when it is SSL or SASL_SSL. */
  readonly tls: ClientTls | null;
}

export interface LeaderEndpoint {
  readonly id: number;
  readonly host: string;
  readonly port: number;
}

export interface FollowedPartition {
  readonly topic: string;
  readonly topicId: string;
  readonly partition: number;
  /** The leader epoch this broker learned from LeaderAndIsr: the leader fences older ones. */
  readonly leaderEpoch: LeaderEpoch;
}

interface FetchState extends FollowedPartition {
  fetchOffset: Offset;
  lastFetchedEpoch: LeaderEpoch;
  logStartOffset: Offset;
  /** Not fetched before this time (ms since epoch) after an error. */
  delayedUntil: number;
}

/** A follower's log position, or the error its owner answered: a partition whose position is unknown cannot be followed. */
function positionOf(p: TopicPartition, reply: ReplicaPositionReply | undefined): ReplicaPositionReply {
  if (reply === undefined || reply.errorCode !== ErrorCode.NONE) {
    throw new KafkaError(
      reply?.errorCode ?? ErrorCode.UNKNOWN_SERVER_ERROR,
      `${p.topic}-${p.partition}: ${reply?.errorMessage ?? 'no answer from its owner'}`,
    );
  }
  return reply;
}

export class ReplicaFetcher {
  private readonly states = new Map<string, FetchState>();
  private connection: KafkaConnection | null = null;
  private running = false;
  private stopped = false;
  private idle: { timer: NodeJS.Timeout; resolve: () => void } | null = null;

  constructor(
    readonly leader: LeaderEndpoint,
    private readonly logs: ReplicaLogs,
    private readonly settings: FetcherSettings,
    private readonly log: Logger,
  ) {}

  get size(): number {
    return this.states.size;
  }

  has(topic: string, partition: number): boolean {
    return this.states.has(topicPartitionKey(topic, partition));
  }

  /** Starts following from the partition's current log end (read from its worker). */
  async add(p: FollowedPartition): Promise<void> {
    const [reply] = await this.logs.replicaPositions([{ topic: p.topic, partition: p.partition, currentLeaderEpoch: p.leaderEpoch }]);
    const position = positionOf(p, reply);
    this.states.set(topicPartitionKey(p.topic, p.partition), {
      ...p,
      fetchOffset: position.logEndOffset,
      lastFetchedEpoch: position.lastFetchedEpoch,
      logStartOffset: position.logStartOffset,
      delayedUntil: 0,
    });
    this.wake();
    if (!this.running) void this.run();
  }

  remove(topic: string, partition: number): void {
    this.states.delete(topicPartitionKey(topic, partition));
  }

  stop(): void {
    this.stopped = true;
    this.states.clear();
    this.wake();
    this.connection?.close();
    this.connection = null;
  }

  private wake(): void {
    if (this.idle === null) return;
    clearTimeout(this.idle.timer);
    this.idle.resolve();
    this.idle = null;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.idle = { timer: setTimeout(() => ((this.idle = null), resolve()), ms), resolve };
    });
  }

  private async run(): Promise<void> {
    this.running = true;
    try {
      while (!this.stopped && this.states.size > 0) {
        const now = Date.now();
        const ready = [...this.states.values()].filter((s) => s.delayedUntil <= now);
        if (ready.length === 0) {
          await this.sleep(Math.max(1, Math.min(...[...this.states.values()].map((s) => s.delayedUntil)) - now));
          continue;
        }
        try {
          await this.fetchOnce(ready);
        } catch (err) {
          if (this.stopped) break;
          this.log.warn('follower fetch failed; backing off', { leader: this.leader.id, error: (err as Error).message });
          this.connection?.close();
          this.connection = null;
          await this.sleep(this.settings.backoffMs);
        }
      }
    } finally {
      this.running = false;
    }
  }

  private async fetchOnce(ready: readonly FetchState[]): Promise<void> {
    this.connection ??= await KafkaConnection.connect({
      host: this.leader.host,
      port: this.leader.port,
      clientId: `replica-fetcher-${this.settings.brokerId}`,
      requestTimeoutMs: this.settings.requestTimeoutMs,
      tls: this.settings.tls,
      ...(this.settings.sasl === undefined ? {} : { sasl: this.settings.sasl }),
    });
    const topics = new Map<string, FetchRequestFetchTopicInput & { partitions: NonNullable<FetchRequestFetchTopicInput['partitions']> }>();
    for (const s of ready) {
      let t = topics.get(s.topic);
      if (t === undefined) topics.set(s.topic, (t = { topic: s.topic, topicId: s.topicId, partitions: [] }));
      t.partitions.push({
        partition: s.partition,
        currentLeaderEpoch: s.leaderEpoch,
        fetchOffset: wireOffset(s.fetchOffset),
        lastFetchedEpoch: s.lastFetchedEpoch,
        logStartOffset: wireOffset(s.logStartOffset),
        partitionMaxBytes: this.settings.partitionMaxBytes,
      });
    }
    const response = await this.connection.request(
      FetchRequest,
      FetchResponse,
      (version) => ({
        ...(version >= 15
          ? { replicaState: { replicaId: this.settings.brokerId, replicaEpoch: this.settings.brokerEpoch() } }
          : { replicaId: this.settings.brokerId }),
        maxWaitMs: this.settings.maxWaitMs,
        minBytes: this.settings.minBytes,
        maxBytes: this.settings.maxBytes,
        isolationLevel: READ_UNCOMMITTED,
        sessionId: 0,
        sessionEpoch: -1,
        topics: [...topics.values()],
      }),
      { timeoutMs: this.settings.requestTimeoutMs + this.settings.maxWaitMs },
    );
    if (response.errorCode !== ErrorCode.NONE) throw new Error(`leader ${this.leader.id} answered Fetch with error ${response.errorCode}`);
    const appends: FollowerAppendRequest[] = [];
    const appended: FetchState[] = [];
    for (const t of response.responses) {
      for (const p of t.partitions) {
        const name = t.topic !== '' ? t.topic : ready.find((s) => s.topicId === t.topicId)?.topic;
        const state = name === undefined ? undefined : this.states.get(topicPartitionKey(name, p.partitionIndex));
        if (state === undefined) continue;
        // The answer's offsets and epochs are converted once, here.
        const leaderLogStartOffset = offsetOf(p.logStartOffset);
        if (p.errorCode === ErrorCode.OFFSET_OUT_OF_RANGE && leaderLogStartOffset > state.fetchOffset) {
          await this.restartAt(state, leaderLogStartOffset);
          continue;
        }
        if (p.errorCode !== ErrorCode.NONE) {
          this.onPartitionError(state, p.errorCode);
          continue;
        }
        if (p.divergingEpoch.epoch !== NO_EPOCH) {
          await this.truncateDiverged(state, leaderEpochOf(p.divergingEpoch.epoch), offsetOf(p.divergingEpoch.endOffset));
          continue;
        }
        if (leaderLogStartOffset > state.fetchOffset && state.fetchOffset >= 0) {
          await this.restartAt(state, leaderLogStartOffset);
          continue;
        }
        appends.push({
          topic: state.topic,
          partition: state.partition,
          currentLeaderEpoch: state.leaderEpoch,
          records: p.records ?? Buffer.alloc(0),
          leaderHighWatermark: offsetOf(p.highWatermark),
          leaderLogStartOffset,
        });
        appended.push(state);
      }
    }
    if (appends.length === 0) return;
    const results = await this.logs.appendAsFollower(appends);
    results.forEach((r, i) => {
      const state = appended[i]!;
      if (this.states.get(topicPartitionKey(state.topic, state.partition)) !== state) return;
      if (r.errorCode !== ErrorCode.NONE) {
        this.log.warn('follower append failed', {
          topic: state.topic,
          partition: state.partition,
          errorCode: r.errorCode,
          error: r.errorMessage,
        });
        this.onPartitionError(state, r.errorCode);
        return;
      }
      state.fetchOffset = r.logEndOffset;
      state.lastFetchedEpoch = r.lastFetchedEpoch;
      state.logStartOffset = r.logStartOffset;
    });
  }

  private async truncateDiverged(state: FetchState, divergingEpoch: LeaderEpoch, leaderEndOffset: Offset): Promise<void> {
    const from = state.fetchOffset;
    await this.truncate(state, 'diverged', leaderEndOffset, divergingEpoch);
    this.log.info('follower diverged from its leader; truncated', {
      topic: state.topic,
      partition: state.partition,
      leaderEpoch: divergingEpoch,
      leaderEndOffset: leaderEndOffset.toString(),
      from: from.toString(),
      to: state.fetchOffset.toString(),
    });
  }

  /** The leader's log starts after everything this follower has: start over from the leader's log start (Kafka's truncateFullyAndStartAt). */
  private async restartAt(state: FetchState, leaderLogStartOffset: Offset): Promise<void> {
    this.log.info('leader log starts past this follower; restarting the log', {
      topic: state.topic,
      partition: state.partition,
      at: leaderLogStartOffset.toString(),
    });
    await this.truncate(state, 'restart', leaderLogStartOffset, NO_EPOCH);
  }

  private async truncate(state: FetchState, kind: TruncationKind, offset: Offset, divergingEpoch: LeaderEpoch): Promise<void> {
    const { topic, partition, leaderEpoch } = state;
    const [reply] = await this.logs.truncate([{ topic, partition, currentLeaderEpoch: leaderEpoch, kind, offset, divergingEpoch }]);
    const position = positionOf(state, reply);
    state.fetchOffset = position.logEndOffset;
    state.lastFetchedEpoch = position.lastFetchedEpoch;
    state.logStartOffset = position.logStartOffset;
  }

  private onPartitionError(state: FetchState, errorCode: number): void {
    this.log.warn('follower fetch answered an error; backing off', {
      topic: state.topic,
      partition: state.partition,
      errorCode,
      offset: state.fetchOffset.toString(),
    });
    state.delayedUntil = Date.now() + this.settings.backoffMs;
  }
}
