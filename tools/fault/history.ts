/**
 * What a fault run records, as plain data: every write with its outcome, the offsets consumers
 * committed, the faults with their times, and the final read of every partition. The checker
 * works on this alone, so it can be tested on crafted histories and rerun on a saved one.
 */

/**
 * acked: the broker acknowledged it (acks=all) at `offset`; failed: the client got a definite
 * error; unknown: it timed out or was still in flight when the run ended, so it may or may not
 * be stored. Only acked writes are promised to survive.
 */
export type WriteOutcome = 'acked' | 'failed' | 'unknown';

export interface Write {
  /** The client library that sent it ("java", "librdkafka"). */
  readonly client: string;
  /** Unique per producer; values are `<writer>-<seq>`. */
  readonly writer: string;
  readonly seq: number;
  readonly value: string;
  readonly partition: number;
  readonly sentAtMs: number;
  readonly outcome: WriteOutcome;
  readonly offset?: number;
  /** When the outcome arrived (the ack time for acked writes). */
  readonly doneAtMs?: number;
  readonly error?: string;
}

/** A commit the consumer saw succeed: `offset` is the next offset to read. */
export interface Commit {
  readonly group: string;
  readonly partition: number;
  readonly offset: number;
  readonly atMs: number;
}

/** A record a group's consumer was handed. */
export interface Consumed {
  readonly group: string;
  readonly partition: number;
  readonly offset: number;
  readonly value: string;
}

/** The committed offset an OffsetFetch returned after the run. */
export interface FetchedOffset {
  readonly group: string;
  readonly partition: number;
  readonly offset: number;
}

export type FaultKind =
  | 'kill-leader'
  | 'kill-follower'
  | 'kill-controller'
  | 'pause'
  | 'zookeeper-restart'
  | 'partition-reset'
  | 'partition-blackhole'
  | 'disk-full';

export interface FaultEvent {
  readonly kind: FaultKind;
  /** What was hit: "broker 2", "zookeeper". */
  readonly target: string;
  readonly startMs: number;
  /** When the fault was undone (restart, SIGCONT, proxy forwarding again…). */
  readonly healedMs: number;
  /** When the cluster was whole again (every broker back, every ISR full); null if it never was. */
  readonly recoveredMs: number | null;
}

export interface StoredRecord {
  readonly partition: number;
  readonly offset: number;
  readonly value: string;
}

export interface History {
  readonly partitions: number;
  readonly writes: readonly Write[];
  readonly consumed: readonly Consumed[];
  readonly commits: readonly Commit[];
  readonly fetchedOffsets: readonly FetchedOffset[];
  readonly faults: readonly FaultEvent[];
  /** Every record of every partition from offset 0 up to the high watermark, after healing. */
  readonly stored: readonly StoredRecord[];
  readonly endMs: number;
}
