/**
 * Collects a run's history (history.ts) as the clients report it: a write is registered when it
 * is sent and gets its outcome later; whatever has no outcome when the run ends is unknown.
 */
import type { Commit, Consumed, FetchedOffset, Write, WriteOutcome } from './history.js';

interface Pending {
  client: string;
  writer: string;
  seq: number;
  value: string;
  partition: number;
  sentAtMs: number;
  outcome?: WriteOutcome;
  offset?: number;
  doneAtMs?: number;
  error?: string;
}

export class Recorder {
  private readonly writes = new Map<string, Pending>();
  readonly consumed: Consumed[] = [];
  readonly commits: Commit[] = [];
  readonly fetchedOffsets: FetchedOffset[] = [];
  /** Acknowledgements so far, per writer: the runner waits for each writer's first. */
  readonly ackedBy = new Map<string, number>();

  /** Values are `<writer>-<seq>`: the writer and its sequence number are read back from them. */
  sent(client: string, value: string, partition: number, atMs: number): void {
    const dash = value.lastIndexOf('-');
    this.writes.set(value, { client, writer: value.slice(0, dash), seq: Number(value.slice(dash + 1)), value, partition, sentAtMs: atMs });
  }

  done(value: string, outcome: WriteOutcome, atMs: number, detail: { offset?: number; error?: string } = {}): void {
    const w = this.writes.get(value);
    if (w === undefined) throw new Error(`an outcome for ${value}, which was never sent`);
    // The first definite outcome stands: a client reports each write once, but be strict.
    if (w.outcome !== undefined) throw new Error(`${value} has two outcomes: ${w.outcome} and ${outcome}`);
    w.outcome = outcome;
    w.doneAtMs = atMs;
    if (detail.offset !== undefined) w.offset = detail.offset;
    if (detail.error !== undefined) w.error = detail.error;
    if (outcome === 'acked') this.ackedBy.set(w.writer, (this.ackedBy.get(w.writer) ?? 0) + 1);
  }

  history(): Write[] {
    return [...this.writes.values()].map((w) => ({ ...w, outcome: w.outcome ?? 'unknown' }));
  }
}
