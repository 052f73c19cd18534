/**
 * A fault run's result as a readable summary (markdown: the console and bench/results) and as
 * the JSON kept beside it: anomaly counts, the unavailability each fault kind caused (median and
 * maximum over every fault and partition), the fault sequence, seed, versions and settings.
 */
import { ANOMALY_KINDS } from './checker.js';
import type { FaultKind } from './history.js';
import type { FaultRunResult } from './runner.js';

export interface KindSummary {
  readonly kind: FaultKind;
  readonly faults: number;
  readonly medianUnavailableMs: number;
  readonly maxUnavailableMs: number;
  readonly medianRecoveryMs: number | null;
}

function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : Math.round((s[mid - 1]! + s[mid]!) / 2);
}

export function byKind(result: FaultRunResult): KindSummary[] {
  const kinds = [...new Set(result.faults.map((f) => f.kind))].sort();
  return kinds.map((kind) => {
    const gaps = result.check.unavailability.filter((u) => u.kind === kind).map((u) => u.ms);
    const recoveries = result.faults.filter((f) => f.kind === kind && f.recoveredMs !== null).map((f) => f.recoveredMs! - f.healedMs);
    return {
      kind,
      faults: result.faults.filter((f) => f.kind === kind).length,
      medianUnavailableMs: median(gaps),
      maxUnavailableMs: gaps.length === 0 ? 0 : Math.max(...gaps),
      medianRecoveryMs: recoveries.length === 0 ? null : median(recoveries),
    };
  });
}

/** Whether the run found nothing wrong. */
export function clean(result: FaultRunResult): boolean {
  return ANOMALY_KINDS.every((k) => result.check.counts[k] === 0) && result.problems.length === 0 && result.check.storedRecords > 0;
}

const ANOMALY_MEANING: Record<(typeof ANOMALY_KINDS)[number], string> = {
  lost: 'acknowledged write absent from the log',
  wrongOffset: 'acknowledged write stored at another offset than acknowledged',
  duplicated: 'a value stored more than once',
  neverSent: 'a value in the log (or read by a consumer) that no client sent',
  reordered: "a writer's values on a partition out of its send order",
  readDiverged: 'a consumer read a value at an offset where the final log holds another',
  offsetsBackwards: "a group's committed offset went backwards",
};

export function markdown(result: FaultRunResult): string {
  const c = result.check;
  const lines = [
    `# Fault run: ${result.faults.length} faults, seed ${result.seed}`,
    '',
    `${clean(result) ? 'No anomaly found.' : '**Anomalies or problems found** (see below).'} ${c.writes.acked} acknowledged writes of ${c.writes.acked + c.writes.failed + c.writes.unknown} (${c.writes.failed} failed, ${c.writes.unknown} unknown: ${c.writes.unknownStored} of those stored, and ${c.writes.failedButStored} failed ones stored); ${c.storedRecords} records read back; ${(result.durationMs / 1000).toFixed(0)} s; clients: ${result.clients.join(', ')}.`,
    '',
    '## Anomalies',
    '',
    '| kind | count | meaning |',
    '|---|---:|---|',
    ...ANOMALY_KINDS.map((k) => `| ${k} | ${c.counts[k]} | ${ANOMALY_MEANING[k]} |`),
    '',
    ...(c.anomalies.length > 0
      ? ['First anomalies:', '', ...c.anomalies.slice(0, 20).map((a) => `- ${a.kind} (partition ${a.partition}): ${a.detail}`), '']
      : []),
    ...(result.problems.length > 0 ? ['Problems with the run:', '', ...result.problems.map((p) => `- ${p}`), ''] : []),
    '## Unavailability by fault kind',
    '',
    "Longest gap between successful acknowledgements on a partition during the fault's window (fault start to next fault), median and maximum over every fault and partition; recovery: from healing to every broker back and every ISR full.",
    '',
    '| fault | count | median unavailable ms | max unavailable ms | median recovery ms |',
    '|---|---:|---:|---:|---:|',
    ...byKind(result).map(
      (k) => `| ${k.kind} | ${k.faults} | ${k.medianUnavailableMs} | ${k.maxUnavailableMs} | ${k.medianRecoveryMs ?? 'never'} |`,
    ),
    '',
    ...(result.skipped.length > 0 ? ['## Left out', '', ...result.skipped.map((s) => `- ${s}`), ''] : []),
    '## Versions and settings',
    '',
    ...Object.entries(result.versions).map(([k, v]) => `- ${k}: ${v}`),
    ...Object.entries(result.settings).map(([k, v]) => `- ${k}=${v}`),
    '',
    '## Fault sequence',
    '',
    ...result.faults.map(
      (f, i) =>
        `${i + 1}. ${f.kind} ${f.target}: held ${f.healedMs - f.startMs} ms, whole again ${f.recoveredMs === null ? 'never' : `${f.recoveredMs - f.healedMs} ms`} after`,
    ),
    '',
  ];
  return lines.join('\n');
}

/** The JSON kept with the summary: everything but the history itself (that stays in the run folder). */
export function resultJson(result: FaultRunResult): string {
  return `${JSON.stringify({ ...result, byKind: byKind(result), check: { ...result.check, anomalies: result.check.anomalies.slice(0, 1000) } }, null, 2)}\n`;
}
