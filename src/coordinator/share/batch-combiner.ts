/**
 * Kafka's PersisterStateBatchCombiner (4.4): the state batches of a share-partition after a write,
 * from the batches it had and the batches written. Batches ending below the start offset are
 * dropped and those straddling it are cut at it; where batches overlap, the one with the higher
 * delivery count wins, then the higher delivery state; adjacent runs of the same count and state
 * are joined. The result is sorted and free of overlaps.
 */
import type { ShareStateBatch } from './share-state-persister.js';

/** -1: the start offset is unknown, nothing is pruned. */
const NO_START_OFFSET = -1n;

function prune(batches: readonly ShareStateBatch[], startOffset: bigint): ShareStateBatch[] {
  if (startOffset === NO_START_OFFSET) return [...batches];
  const kept: ShareStateBatch[] = [];
  for (const b of batches) {
    if (b.lastOffset < startOffset) continue;
    kept.push(b.firstOffset >= startOffset ? b : { ...b, firstOffset: startOffset });
  }
  return kept;
}

/** Higher delivery count first, then higher delivery state: the order in which overlapping batches win. */
function priorityDescending(a: ShareStateBatch, b: ShareStateBatch): number {
  return b.deliveryCount - a.deliveryCount || b.deliveryState - a.deliveryState;
}

function sameDelivery(a: ShareStateBatch, b: ShareStateBatch): boolean {
  return a.deliveryCount === b.deliveryCount && a.deliveryState === b.deliveryState;
}

/** Appends `[first, last]` in `winner`'s state, extending the last batch when it continues it. */
function appendCoalesced(out: ShareStateBatch[], first: bigint, last: bigint, winner: ShareStateBatch): void {
  const previous = out.at(-1);
  if (previous !== undefined && previous.lastOffset + 1n === first && sameDelivery(previous, winner)) {
    out[out.length - 1] = { ...previous, lastOffset: last };
    return;
  }
  out.push({ firstOffset: first, lastOffset: last, deliveryState: winner.deliveryState, deliveryCount: winner.deliveryCount });
}

export function combineStateBatches(
  soFar: readonly ShareStateBatch[],
  written: readonly ShareStateBatch[],
  startOffset: bigint,
): ShareStateBatch[] {
  const batches = [...prune(soFar, startOffset), ...prune(written, startOffset)];
  if (batches.length < 2) return batches;
  // A sweep over the batch boundaries: between two boundaries the winner of the batches open there holds.
  const events = batches.flatMap((b) => [
    { offset: b.firstOffset, begin: true, batch: b },
    { offset: b.lastOffset + 1n, begin: false, batch: b },
  ]);
  events.sort((x, y) => (x.offset < y.offset ? -1 : x.offset > y.offset ? 1 : Number(x.begin) - Number(y.begin)));
  const open: ShareStateBatch[] = [];
  const out: ShareStateBatch[] = [];
  let winner: ShareStateBatch | null = null;
  let from = 0n;
  for (let i = 0; i < events.length;) {
    const offset = events[i]!.offset;
    if (winner !== null && offset > from) appendCoalesced(out, from, offset - 1n, winner);
    for (; i < events.length && events[i]!.offset === offset; i++) {
      const e = events[i]!;
      if (e.begin) open.push(e.batch);
      else open.splice(open.indexOf(e.batch), 1);
    }
    winner = open.length === 0 ? null : open.reduce((best, b) => (priorityDescending(b, best) < 0 ? b : best));
    from = offset;
  }
  return out;
}
