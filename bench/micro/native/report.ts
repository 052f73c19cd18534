/**
 * Writes a benchmark's rows as bench/results/<name>.json and a Markdown table next to it, and
 * prints the table. Numbers come from a shared 2-core machine: indicative, not precise.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';

export type Row = Record<string, string | number>;

export function writeReport(name: string, title: string, rows: Row[], notes: string[] = []): void {
  const dir = new URL('../../../../bench/results/', import.meta.url);
  mkdirSync(dir, { recursive: true });
  const environment = { node: process.version, cpu: cpus()[0]?.model ?? 'unknown', cores: cpus().length, date: new Date().toISOString() };
  writeFileSync(new URL(`${name}.json`, dir), `${JSON.stringify({ name, title, environment, notes, rows }, null, 2)}\n`);
  const columns = Object.keys(rows[0] ?? {});
  const table = [
    `| ${columns.join(' | ')} |`,
    `| ${columns.map((c) => (typeof rows[0]?.[c] === 'number' ? '---:' : '---')).join(' | ')} |`,
    ...rows.map((row) => `| ${columns.map((c) => format(row[c])).join(' | ')} |`),
  ].join('\n');
  const markdown = `## ${title}\n\n${environment.cpu}, ${environment.cores} cores, Node ${environment.node}, ${environment.date.slice(0, 10)}.\n\n${table}\n${notes.map((n) => `\n${n}`).join('')}\n`;
  writeFileSync(new URL(`${name}.md`, dir), markdown);
  console.log(markdown);
}

function format(value: string | number | undefined): string {
  if (typeof value !== 'number') return value ?? '';
  if (Number.isInteger(value)) return String(value);
  return value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2);
}

/** Keeps results observable so the JIT cannot drop the work. */
export let sink = 0;
export function consume(value: number): void {
  sink = (sink + value) | 0;
}
