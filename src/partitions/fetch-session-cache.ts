/**
 * Incremental fetch sessions (KIP-227), owned by the main thread. A client that opens a session
 * (session id 0, epoch 0) gets an id; afterwards it sends only the partitions that changed and
 * the broker answers only the partitions with something new (records, a moved high watermark,
 * log start or last stable offset, an error, or a follower's diverging epoch). Followers use
 * sessions too, as Kafka's replica fetchers do. The session remembers every partition's fetch
 * parameters and what the client was last told.
 *
 *   id 0,  epoch -1  full fetch, no session
 *   id 0,  epoch 0   full fetch, open a session (id 0 in the response when the cache is full)
 *   id N,  epoch -1  close session N, full fetch without a session
 *   id N,  epoch E>0 incremental fetch in session N; E must be the session's next epoch
 */
import { ErrorCode } from '@sluice/protocol/errors.js';
import { topicPartitionKey } from '@sluice/protocol/common/topic-partition.js';

export const FINAL_EPOCH = -1;
export const INITIAL_EPOCH = 0;
const NO_SESSION = 0;
const MAX_EPOCH = 0x7fffffff;

/** A partition as the fetch names it: by topic id (v13+) or by name (older versions). */
export interface FetchPartitionKey {
  readonly topicId: string;
  readonly topic: string;
  readonly partition: number;
}

export interface FetchPartitionParams {
  readonly fetchOffset: bigint;
  readonly partitionMaxBytes: number;
  readonly currentLeaderEpoch: number;
  readonly lastFetchedEpoch: number;
  readonly logStartOffset: bigint;
}

export type FetchPartitionRequest = FetchPartitionKey & FetchPartitionParams;

/** What one partition's answer carries that decides whether an incremental response includes it. */
export interface FetchPartitionOutcome {
  readonly errorCode: number;
  readonly highWatermark: bigint;
  readonly lastStableOffset: bigint;
  readonly logStartOffset: bigint;
  readonly recordBytes: number;
  /** A follower's log diverged: the answer tells it where to truncate. */
  readonly diverged: boolean;
}

export interface SessionPartition extends FetchPartitionKey {
  params: FetchPartitionParams;
  /** What the client was last told; -1 until the first answer. */
  highWatermark: bigint;
  lastStableOffset: bigint;
  logStartOffset: bigint;
}

export interface FetchSessionRequest {
  readonly sessionId: number;
  readonly sessionEpoch: number;
  /** True for Fetch v13+, where partitions are named by topic id. */
  readonly usesTopicIds: boolean;
  readonly partitions: readonly FetchPartitionRequest[];
  readonly forgotten: readonly FetchPartitionKey[];
}

class FetchSession {
  readonly partitions = new Map<string, SessionPartition>();
  nextEpoch = 1;

  constructor(
    readonly id: number,
    readonly usesTopicIds: boolean,
  ) {}

  advanceEpoch(): void {
    this.nextEpoch = this.nextEpoch === MAX_EPOCH ? 1 : this.nextEpoch + 1;
  }
}

/** One fetch request's view of its session: what to read, and which answers to send back. */
export class FetchContext {
  constructor(
    /** The session id to put in the response (0 when there is none). */
    readonly sessionId: number,
    /** Partitions to read, in the order the response lists them. */
    readonly partitions: readonly SessionPartition[],
    readonly incremental: boolean,
  ) {}

  /**
   * Records the answer as what the client now knows and says whether the response must carry
   * this partition: always in a full fetch; in an incremental one only when something changed.
   */
  include(p: SessionPartition, outcome: FetchPartitionOutcome): boolean {
    let changed = outcome.recordBytes > 0 || outcome.errorCode !== ErrorCode.NONE || outcome.diverged;
    if (p.highWatermark !== outcome.highWatermark) {
      p.highWatermark = outcome.highWatermark;
      changed = true;
    }
    if (p.lastStableOffset !== outcome.lastStableOffset) {
      p.lastStableOffset = outcome.lastStableOffset;
      changed = true;
    }
    if (p.logStartOffset !== outcome.logStartOffset) {
      p.logStartOffset = outcome.logStartOffset;
      changed = true;
    }
    return !this.incremental || changed;
  }
}

export type FetchContextResult = { readonly ok: true; readonly context: FetchContext } | { readonly ok: false; readonly errorCode: number };

export interface FetchSessionCacheOptions {
  /** `max.incremental.fetch.session.cache.slots` (Kafka's default 1000). */
  readonly maxSessions: number;
  readonly randomId?: () => number;
}

function keyOf(p: FetchPartitionKey, usesTopicIds: boolean): string {
  return topicPartitionKey(usesTopicIds ? p.topicId : p.topic, p.partition);
}

function sessionPartition(p: FetchPartitionRequest): SessionPartition {
  return {
    topicId: p.topicId,
    topic: p.topic,
    partition: p.partition,
    params: p,
    highWatermark: -1n,
    lastStableOffset: -1n,
    logStartOffset: -1n,
  };
}

export class FetchSessionCache {
  /** Insertion order is recency order: a used session is moved to the end. */
  private readonly sessions = new Map<number, FetchSession>();
  private readonly randomId: () => number;

  constructor(private readonly options: FetchSessionCacheOptions) {
    this.randomId = options.randomId ?? (() => 1 + Math.floor(Math.random() * (MAX_EPOCH - 1)));
  }

  get size(): number {
    return this.sessions.size;
  }

  newContext(req: FetchSessionRequest): FetchContextResult {
    if (req.sessionEpoch === FINAL_EPOCH) {
      if (req.sessionId !== NO_SESSION) this.sessions.delete(req.sessionId);
      return { ok: true, context: new FetchContext(NO_SESSION, req.partitions.map(sessionPartition), false) };
    }
    if (req.sessionEpoch === INITIAL_EPOCH) {
      if (req.sessionId !== NO_SESSION) this.sessions.delete(req.sessionId);
      const session = this.open(req.usesTopicIds);
      const partitions = req.partitions.map(sessionPartition);
      if (session) for (const p of partitions) session.partitions.set(keyOf(p, req.usesTopicIds), p);
      return { ok: true, context: new FetchContext(session?.id ?? NO_SESSION, partitions, false) };
    }
    const session = this.sessions.get(req.sessionId);
    if (session === undefined) return { ok: false, errorCode: ErrorCode.FETCH_SESSION_ID_NOT_FOUND };
    if (session.nextEpoch !== req.sessionEpoch) return { ok: false, errorCode: ErrorCode.INVALID_FETCH_SESSION_EPOCH };
    if (session.usesTopicIds !== req.usesTopicIds) return { ok: false, errorCode: ErrorCode.FETCH_SESSION_TOPIC_ID_ERROR };
    for (const p of req.partitions) {
      const key = keyOf(p, session.usesTopicIds);
      const existing = session.partitions.get(key);
      if (existing) existing.params = p;
      else session.partitions.set(key, sessionPartition(p));
    }
    for (const f of req.forgotten) session.partitions.delete(keyOf(f, session.usesTopicIds));
    session.advanceEpoch();
    this.touch(session);
    return { ok: true, context: new FetchContext(session.id, [...session.partitions.values()], true) };
  }

  /** Drops a session its client never learned of (a throttled fetch answers it without the id). */
  remove(sessionId: number): void {
    if (sessionId !== NO_SESSION) this.sessions.delete(sessionId);
  }

  private open(usesTopicIds: boolean): FetchSession | null {
    if (this.options.maxSessions <= 0) return null;
    if (this.sessions.size >= this.options.maxSessions) {
      // Make room by evicting the least recently used session; its client gets
      // FETCH_SESSION_ID_NOT_FOUND on its next incremental fetch and starts a new one.
      const oldest = this.sessions.keys().next();
      if (!oldest.done) this.sessions.delete(oldest.value);
    }
    let id = this.randomId();
    while (id === NO_SESSION || this.sessions.has(id)) id = this.randomId();
    const session = new FetchSession(id, usesTopicIds);
    this.sessions.set(id, session);
    return session;
  }

  private touch(session: FetchSession): void {
    this.sessions.delete(session.id);
    this.sessions.set(session.id, session);
  }
}
