/**
 * What a sweep leaves behind in its output directory: `results.json` (settings, every cell,
 * the recommendation) and `report.html` (one self-contained page: recommendation, heatmaps,
 * curves, the full table).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ClientName } from './client-drivers.js';
import type { Recommendation } from './recommend.js';
import type { Confidence } from './recommend-confidence.js';
import { renderReportHtml } from './report-html.js';
import type { CellResult, SweepSettings } from './sweep.js';

export interface ReportSettings extends Omit<SweepSettings, 'producerConfig'> {
  /** The user's `--producer-config`, secrets hidden (`hiddenSecrets`). */
  readonly producerConfig: Readonly<Record<string, string>>;
  readonly p99BoundMs: number | null;
  readonly throughputGoal: number | null;
  readonly minThroughputFraction: number;
}

export interface TuneReport {
  readonly tool: 'sluice tune';
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly bootstrap: string;
  readonly topic: string;
  /** The client driven, and what its driver said it is (e.g. "kafka-clients 4.4.0"). */
  readonly client: { readonly name: ClientName; readonly version: string };
  readonly settings: ReportSettings;
  readonly cells: readonly CellResult[];
  readonly recommendation: Recommendation;
  readonly confidence: Confidence;
  readonly brokerMetricsNote: string | null;
}

/** Settings as the report states them: the producer properties with passwords and JAAS configs hidden. */
export type TuneReportInput = Omit<TuneReport, 'settings'> & { readonly settings: Omit<ReportSettings, 'producerConfig'> & { readonly producerConfig: ReadonlyMap<string, string> } };

const SECRET_KEY = /password|secret|jaas|(^|\.)key$/i;

export function hiddenSecrets(properties: ReadonlyMap<string, string>): Record<string, string> {
  return Object.fromEntries([...properties].map(([k, v]) => [k, SECRET_KEY.test(k) ? '[hidden]' : v]));
}

export function writeReport(dir: string, input: TuneReportInput): { readonly json: string; readonly html: string } {
  const report: TuneReport = { ...input, settings: { ...input.settings, producerConfig: hiddenSecrets(input.settings.producerConfig) } };
  mkdirSync(dir, { recursive: true });
  const json = join(dir, 'results.json');
  const html = join(dir, 'report.html');
  // NaN (a statistic with no data) has no JSON form; JSON.stringify writes it as null.
  writeFileSync(json, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(html, renderReportHtml(report));
  return { json, html };
}
