/** How the report writes sizes, rates and durations, in one place so text, tables and charts agree. */

/** Binary units as Kafka's docs use them: 16384 → "16 KiB", 1048576 → "1 MiB". */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return '–';
  const units = ['B', 'KiB', 'MiB', 'GiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${Number.isInteger(value) ? value : value.toFixed(value >= 100 ? 0 : 1)} ${units[unit]}`;
}

export function formatRate(recordsPerSecond: number): string {
  return `${formatCount(recordsPerSecond)} records/s`;
}

export function formatCount(n: number): string {
  return Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–';
}

export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return '–';
  return `${ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2)} ms`;
}

/** `formatMs` without its unit, for an axis or a figure already titled "ms". */
export function formatMsValue(ms: number): string {
  return formatMs(ms).replace(' ms', '');
}

/** "1m05s", "42s": for the progress bar's ETA. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s` : `${s}s`;
}
