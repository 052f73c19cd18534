/**
 * Share sessions (KIP-932), one per (group, member), as Kafka's ShareSessionCache keeps them: a
 * ShareFetch at epoch 0 opens one (replacing the member's previous session), later requests name
 * the next epoch and add or forget partitions, epoch -1 closes it. At most
 * `group.share.max.share.sessions` sessions exist at once. A session remembers the connection
 * that opened it, so that a closed connection ends it.
 */
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';

export const INITIAL_SHARE_EPOCH = 0;
export const FINAL_SHARE_EPOCH = -1;

/** A partition of a share session: topics are named by id in ShareFetch. */
export interface ShareSessionPartition {
  readonly topicId: string;
  readonly partition: number;
}

export interface ShareSessionKey {
  readonly groupId: string;
  readonly memberId: string;
}

/** What one request may do within its member's session. */
export interface ShareSessionContext {
  /** The partitions the request fetches: all the session's after this request's additions and removals. */
  readonly partitions: readonly ShareSessionPartition[];
  /** Epoch -1: the session ends once the request's acknowledgements are applied. */
  readonly final: boolean;
}

interface ShareSession {
  epoch: number;
  readonly partitions: Map<string, ShareSessionPartition>;
  readonly connection: object;
}

function sessionId(key: ShareSessionKey): string {
  return `${key.groupId}\u0000${key.memberId}`;
}

function partitionId(p: ShareSessionPartition): string {
  return `${p.topicId}:${p.partition}`;
}

/** Kafka's ShareRequestMetadata.nextEpoch: epochs count up from 1 and wrap back to 1. */
function nextEpoch(epoch: number): number {
  return epoch >= 0x7fffffff ? 1 : epoch + 1;
}

export class ShareSessionCache {
  private readonly sessions = new Map<string, ShareSession>();

  constructor(private readonly maxSessions: number) {}

  get size(): number {
    return this.sessions.size;
  }

  /**
   * The session a ShareFetch works in (Kafka's SharePartitionManager.newContext). Throws
   * INVALID_REQUEST for acknowledgements in an opening request, SHARE_SESSION_NOT_FOUND,
   * INVALID_SHARE_SESSION_EPOCH or SHARE_SESSION_LIMIT_REACHED.
   */
  forFetch(
    key: ShareSessionKey,
    epoch: number,
    connection: object,
    added: readonly ShareSessionPartition[],
    forgotten: readonly ShareSessionPartition[],
    hasAcknowledgements: boolean,
  ): ShareSessionContext {
    const id = sessionId(key);
    if (epoch === FINAL_SHARE_EPOCH) {
      this.existing(key, null);
      return { partitions: [], final: true };
    }
    if (epoch === INITIAL_SHARE_EPOCH) {
      if (hasAcknowledgements)
        throw new KafkaError(ErrorCode.INVALID_REQUEST, 'a ShareFetch opening a share session carries no acknowledgements');
      this.sessions.delete(id);
      if (this.sessions.size >= this.maxSessions)
        throw new KafkaError(ErrorCode.SHARE_SESSION_LIMIT_REACHED, `the broker holds its maximum of ${this.maxSessions} share sessions`);
      const session: ShareSession = { epoch: nextEpoch(INITIAL_SHARE_EPOCH), partitions: new Map(), connection };
      for (const p of added) session.partitions.set(partitionId(p), p);
      this.sessions.set(id, session);
      return { partitions: [...session.partitions.values()], final: false };
    }
    const session = this.existing(key, epoch);
    for (const p of added) session.partitions.set(partitionId(p), p);
    for (const p of forgotten) session.partitions.delete(partitionId(p));
    session.epoch = nextEpoch(session.epoch);
    return { partitions: [...session.partitions.values()], final: false };
  }

  /** The session a ShareAcknowledge works in: it never opens one (epoch 0 is INVALID_SHARE_SESSION_EPOCH). */
  forAcknowledge(key: ShareSessionKey, epoch: number): ShareSessionContext {
    if (epoch === INITIAL_SHARE_EPOCH)
      throw new KafkaError(ErrorCode.INVALID_SHARE_SESSION_EPOCH, 'a ShareAcknowledge cannot open a share session');
    if (epoch === FINAL_SHARE_EPOCH) {
      this.existing(key, null);
      return { partitions: [], final: true };
    }
    const session = this.existing(key, epoch);
    session.epoch = nextEpoch(session.epoch);
    return { partitions: [...session.partitions.values()], final: false };
  }

  /** Ends the member's session; true when there was one. */
  remove(key: ShareSessionKey): boolean {
    return this.sessions.delete(sessionId(key));
  }

  /** Ends every session opened on `connection` and answers their keys (their members' records are released). */
  connectionClosed(connection: object): ShareSessionKey[] {
    const ended: ShareSessionKey[] = [];
    for (const [id, session] of this.sessions) {
      if (session.connection !== connection) continue;
      this.sessions.delete(id);
      const [groupId, memberId] = id.split('\u0000') as [string, string];
      ended.push({ groupId, memberId });
    }
    return ended;
  }

  /** The member's session at `epoch` (any epoch for null); throws SHARE_SESSION_NOT_FOUND or INVALID_SHARE_SESSION_EPOCH. */
  private existing(key: ShareSessionKey, epoch: number | null): ShareSession {
    const session = this.sessions.get(sessionId(key));
    if (session === undefined)
      throw new KafkaError(ErrorCode.SHARE_SESSION_NOT_FOUND, `no share session for member ${key.memberId} of group ${key.groupId}`);
    if (epoch !== null && session.epoch !== epoch)
      throw new KafkaError(ErrorCode.INVALID_SHARE_SESSION_EPOCH, `share session epoch ${epoch} is not the expected ${session.epoch}`);
    return session;
  }
}
