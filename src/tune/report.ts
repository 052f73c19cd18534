/**
 * What a sweep leaves behind in its output directory: `results.json` (settings, every cell,
 * the recommendation) and `report.html` (one self-contained page: recommendation, heatmaps,
 * curves, the full table).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Recommendation } from './recommend.js';
import { renderReportHtml } from './report-html.js';
import type { CellResult, SweepSettings } from './sweep.js';

export interface TuneReport {
  readonly tool: 'sluice tune';
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly bootstrap: string;
  readonly topic: string;
  readonly settings: SweepSettings & { readonly p99BoundMs: number | null; readonly minThroughputFraction: number };
  readonly cells: readonly CellResult[];
  readonly recommendation: Recommendation;
  readonly brokerMetricsNote: string | null;
}

export function writeReport(dir: string, report: TuneReport): { readonly json: string; readonly html: string } {
  mkdirSync(dir, { recursive: true });
  const json = join(dir, 'results.json');
  const html = join(dir, 'report.html');
  // NaN (a statistic with no data) has no JSON form; JSON.stringify writes it as null.
  writeFileSync(json, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(html, renderReportHtml(report));
  return { json, html };
}
