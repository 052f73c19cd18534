/**
 * What a sweep leaves behind in its output directory: `results.json` (settings, every cell,
 * the recommendation), `report.html` (one self-contained page: client, recommendation, heatmaps,
 * curves, the full table) and, where Chromium is installed, `report.png` (the page as an image).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ClientName } from './client-drivers.js';
import type { Recommendation } from './recommend.js';
import type { Confidence } from './recommend-confidence.js';
import { renderReportHtml } from './report-html.js';
import { renderPng, type PngOutcome } from './report-png.js';
import type { CellResult, SweepSettings } from './sweep.js';

/** The settings that hold the user's client properties: a report states them with secrets hidden. */
type ClientConfigKey = 'producerConfig' | 'consumerConfig';

export interface ReportSettings extends Omit<SweepSettings, ClientConfigKey> {
  /** The user's `--producer-config`, secrets hidden (`hiddenSecrets`). */
  readonly producerConfig: Readonly<Record<string, string>>;
  /** The user's `--consumer-config`, secrets hidden. */
  readonly consumerConfig: Readonly<Record<string, string>>;
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

export interface ReportFiles {
  readonly json: string;
  readonly html: string;
  /** The PNG's path, or why there is none. */
  readonly png: PngOutcome;
}

/** Settings as the report states them: the client properties with passwords and JAAS configs hidden. */
export type TuneReportInput = Omit<TuneReport, 'settings'> & {
  readonly settings: Omit<ReportSettings, ClientConfigKey> & Pick<SweepSettings, ClientConfigKey>;
};

const SECRET_KEY = /password|secret|jaas|(^|\.)key$/i;

export function hiddenSecrets(properties: ReadonlyMap<string, string>): Record<string, string> {
  return Object.fromEntries([...properties].map(([k, v]) => [k, SECRET_KEY.test(k) ? '[hidden]' : v]));
}

/** `chromium`: the binary for report.png; absent: the first on PATH; null: no PNG. */
export function writeReport(dir: string, input: TuneReportInput, chromium?: string | null): ReportFiles {
  const { producerConfig, consumerConfig } = input.settings;
  const report: TuneReport = {
    ...input,
    settings: { ...input.settings, producerConfig: hiddenSecrets(producerConfig), consumerConfig: hiddenSecrets(consumerConfig) },
  };
  mkdirSync(dir, { recursive: true });
  const json = join(dir, 'results.json');
  const html = join(dir, 'report.html');
  // NaN (a statistic with no data) has no JSON form; JSON.stringify writes it as null.
  writeFileSync(json, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(html, renderReportHtml(report));
  return { json, html, png: renderPng(html, join(dir, 'report.png'), chromium) };
}
