/**
 * Tables in the layout of Kafka's tools: left-aligned columns one space apart, each padded to
 * its widest cell but at least its minimum width (Kafka's `%-15s`), the last column unpadded.
 */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[], minWidths: readonly number[]): string {
  const widths = header.map((h, i) => Math.max(minWidths[i] ?? 0, h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join(' ')
      .trimEnd();
  return [header, ...rows].map(line).join('\n') + '\n';
}
