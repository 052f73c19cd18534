/**
 * What a leader knows of one follower (Kafka's `Replica` and its `ReplicaState`): the follower's
 * log end offset, learned from the offset of its fetches, and when it was last caught up, which
 * decides whether it stays in (or may hold back the high watermark as a candidate for) the ISR.
 * Part of the leader's `Partition`, which owns it; nothing else updates it.
 */
import { latest, NO_OFFSET, type Offset } from '@sluice/protocol/common/offsets.js';

/** A time before any clock reading: "never caught up". */
const NEVER = Number.NEGATIVE_INFINITY;

export class FollowerReplica {
  /** The follower's log end offset: the offset of its last fetch. */
  logEndOffset: Offset = NO_OFFSET;
  /**
   * The largest time at which the follower's latest fetch offset had reached the leader's log end
   * (Kafka's lastCaughtUpTimeMs).
   */
  private lastCaughtUpMs = NEVER;
  /** The leader's log end offset when the previous fetch arrived, and that fetch's time. */
  private lastFetchLeaderLogEndOffset: Offset = NO_OFFSET;
  private lastFetchMs = NEVER;

  constructor(readonly brokerId: number) {}

  /**
   * Records a fetch at `fetchOffset` arriving at `nowMs` while the leader's log ended at
   * `leaderEndOffset`. A fetch at the leader's end is caught up now; one that reaches the end the
   * leader had at the previous fetch was caught up then. The second rule keeps a follower in sync
   * under a steady stream of small appends, where no fetch ever sees the current end.
   */
  updateFetchState(fetchOffset: Offset, nowMs: number, leaderEndOffset: Offset): void {
    if (fetchOffset >= leaderEndOffset) this.lastCaughtUpMs = Math.max(this.lastCaughtUpMs, nowMs);
    else if (fetchOffset >= this.lastFetchLeaderLogEndOffset) this.lastCaughtUpMs = Math.max(this.lastCaughtUpMs, this.lastFetchMs);
    this.logEndOffset = fetchOffset;
    this.lastFetchLeaderLogEndOffset = latest(this.lastFetchLeaderLogEndOffset, leaderEndOffset);
    this.lastFetchMs = nowMs;
  }

  /** At the leader's end, or caught up within `maxLagMs` (Kafka's `isCaughtUp`). */
  isCaughtUp(leaderEndOffset: Offset, nowMs: number, maxLagMs: number): boolean {
    return this.logEndOffset === leaderEndOffset || nowMs - this.lastCaughtUpMs <= maxLagMs;
  }

  /**
   * A new leader epoch at this leader (Kafka's `resetReplicaState`). An in-sync follower gets a
   * fresh lag allowance; one outside the ISR none, so it does not hold back the high watermark.
   * A leader that just took over knows nothing of the follower's log; one re-elected keeps what
   * it learned.
   */
  reset(nowMs: number, leaderEndOffset: Offset, newLeader: boolean, inSync: boolean): void {
    this.lastCaughtUpMs = inSync ? nowMs : NEVER;
    if (newLeader) {
      this.logEndOffset = NO_OFFSET;
      this.lastFetchLeaderLogEndOffset = NO_OFFSET;
      this.lastFetchMs = NEVER;
    } else {
      this.lastFetchLeaderLogEndOffset = leaderEndOffset;
      this.lastFetchMs = inSync ? nowMs : NEVER;
    }
  }
}
