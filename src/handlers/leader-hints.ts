/**
 * KIP-951: a partition answered NOT_LEADER_OR_FOLLOWER or FENCED_LEADER_EPOCH carries its current
 * leader and leader epoch, and the response the endpoints of the leaders it names, so that a
 * client moves to the new leader without a metadata round trip. Produce carries them from v10,
 * Fetch its `currentLeader` from v12 and node endpoints from v16.
 */
import { ErrorCode } from '@sluice/protocol/errors.js';
import { endpointOn, type MetadataImage } from '../metadata/metadata-image.js';

export interface LeaderHint {
  readonly leaderId: number;
  readonly leaderEpoch: number;
}

export interface NodeEndpoint {
  readonly nodeId: number;
  readonly host: string;
  readonly port: number;
  readonly rack: string | null;
}

const MOVED = new Set<number>([ErrorCode.NOT_LEADER_OR_FOLLOWER, ErrorCode.FENCED_LEADER_EPOCH]);

/** Whether an answer with this error carries a leader hint: most answers do not, and then nothing is built. */
export function isMoved(errorCode: number | undefined): boolean {
  return errorCode !== undefined && MOVED.has(errorCode);
}

/** Collects the hints of one response. */
export class LeaderHints {
  private readonly leaders = new Set<number>();

  constructor(
    private readonly image: MetadataImage,
    /** The request's listener: hints name the leader's endpoint on it. */
    private readonly listenerName: string,
  ) {}

  /** The hint for a partition answered `errorCode`, or null when the error does not call for one. */
  hint(errorCode: number, topic: string, partition: number): LeaderHint | null {
    if (!isMoved(errorCode)) return null;
    const p = this.image.partition(topic, partition);
    if (p === undefined) return null;
    if (p.leader >= 0) this.leaders.add(p.leader);
    return { leaderId: p.leader, leaderEpoch: p.leaderEpoch };
  }

  endpoints(): NodeEndpoint[] {
    return [...this.leaders].flatMap((id) => {
      const b = this.image.broker(id);
      const endpoint = b === undefined ? undefined : endpointOn(b, this.listenerName);
      return endpoint === undefined ? [] : [{ nodeId: b!.nodeId, host: endpoint.host, port: endpoint.port, rack: b!.rack }];
    });
  }
}
