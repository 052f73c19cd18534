/**
 * How sure the recommendation is, from `--repeat`: each round of the grid is asked on its own
 * which cell it would recommend, and the advice says in how many rounds that was the same cell,
 * and how far the recommended cell's throughput and p99 ranged over its runs. One round
 * (no `--repeat`) can only say that it was one run.
 */
import { recommend, type CellOutcome, type Recommendation, type RecommendationRule } from './recommend.js';
import { formatCount, formatMsValue } from './units.js';

export interface Confidence {
  readonly rounds: number;
  /** Rounds whose own recommendation is the overall one (cell, or "none qualifies"). */
  readonly agreeingRounds: number;
  readonly text: string;
}

/** `roundsByCell[i]` holds cell i's outcome in each round, rounds in the same order for every cell. */
export function recommendationConfidence(
  overall: Recommendation,
  roundsByCell: ReadonlyArray<readonly CellOutcome[]>,
  rule: RecommendationRule,
): Confidence {
  const rounds = Math.min(...roundsByCell.map((r) => r.length));
  if (!(rounds > 1))
    return { rounds: 1, agreeingRounds: 1, text: 'One run per cell: run with --repeat 3 or more to see how sure this is.' };
  let agreeing = 0;
  for (let round = 0; round < rounds; round++) {
    const own = recommend(
      roundsByCell.map((runs) => runs[round]!),
      rule,
    );
    if (own.batchSize === overall.batchSize && own.lingerMs === overall.lingerMs) agreeing++;
  }
  const chosen = roundsByCell.find((runs) => runs[0]!.batchSize === overall.batchSize && runs[0]!.lingerMs === overall.lingerMs);
  const verdict = agreeing === rounds ? `all ${rounds} rounds` : `${agreeing} of ${rounds} rounds`;
  const spreadText =
    chosen === undefined
      ? ''
      : `; over its runs the recommended cell reached ${range(
          chosen.map((r) => r.recordsPerSecond),
          formatCount,
        )} records/s with p99 ${range(
          chosen.map((r) => r.p99Ms),
          formatMsValue,
        )} ms`;
  return {
    rounds,
    agreeingRounds: agreeing,
    text: `How sure: ${verdict}, each taken alone, ${overall.batchSize === null ? 'also find no qualifying cell' : 'recommend the same cell'}${spreadText}.`,
  };
}

function range(values: readonly number[], format: (v: number) => string): string {
  const finite = values.filter(Number.isFinite);
  if (finite.length === 0) return '–';
  const [min, max] = [Math.min(...finite), Math.max(...finite)];
  return min === max ? format(min) : `${format(min)}–${format(max)}`;
}
