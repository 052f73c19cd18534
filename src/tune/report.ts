/**
 * What a sweep leaves behind in its output directory: `results.json` (settings, every cell,
 * the recommendation), `report.html` (one self-contained page: client, recommendation, heatmaps,
 * curves, the full table) and, where Chromium is installed, `report.png` (the page as an image).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Recommendation } from './recommend.js';
import { renderReportHtml } from './report-html.js';
import { renderPng, type PngOutcome } from './report-png.js';
import type { CellResult, SweepSettings } from './sweep.js';

export interface TuneReport {
  readonly tool: 'sluice tune';
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly bootstrap: string;
  readonly topic: string;
  /** The client the sweep drove, and what it is (e.g. a version). */
  readonly client: { readonly name: string; readonly version: string };
  readonly settings: SweepSettings & {
    readonly p99BoundMs: number | null;
    readonly minThroughputFraction: number;
    /** Producer properties set beyond the sweep's options (secrets hidden); the header lists them. */
    readonly producerConfig?: Readonly<Record<string, string>>;
  };
  readonly cells: readonly CellResult[];
  readonly recommendation: Recommendation;
  readonly brokerMetricsNote: string | null;
}

export interface ReportFiles {
  readonly json: string;
  readonly html: string;
  /** The PNG's path, or why there is none. */
  readonly png: PngOutcome;
}

export function writeReport(dir: string, report: TuneReport, chromium?: string | null): ReportFiles {
  mkdirSync(dir, { recursive: true });
  const json = join(dir, 'results.json');
  const html = join(dir, 'report.html');
  // NaN (a statistic with no data) has no JSON form; JSON.stringify writes it as null.
  writeFileSync(json, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(html, renderReportHtml(report));
  return { json, html, png: renderPng(html, join(dir, 'report.png'), chromium) };
}
