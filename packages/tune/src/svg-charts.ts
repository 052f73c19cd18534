/**
 * The report's charts as standalone inline SVG strings, no dependencies: a heatmap over the
 * batch.size × linger.ms grid (red = worse, green = better, value printed in each cell, colours
 * from a noise-aware `ColourScale`), a line chart with one line per series over categorical x
 * values (linger.ms steps are uneven, 0/1/5/10/25/50, so they are spaced evenly and labelled),
 * and an x–y chart with numeric axes (latency against throughput).
 */
import type { ColourScale } from './heatmap-scale.js';
import { noiseLegend } from './heatmap-scale.js';

export interface Heatmap {
  readonly title: string;
  readonly rowTitle: string;
  readonly columnTitle: string;
  readonly rows: readonly string[];
  readonly columns: readonly string[];
  /** values[row][column]; NaN draws a grey cell. */
  readonly values: ReadonlyArray<readonly number[]>;
  /** Colours: see `heatmap-scale.ts`. */
  readonly scale: ColourScale;
  readonly format: (value: number) => string;
  /** A cell to outline (the recommendation). */
  readonly highlight?: { readonly row: number; readonly column: number } | null;
}

export interface LineSeries {
  readonly name: string;
  /** One per x category; NaN leaves a gap. */
  readonly values: readonly number[];
}

export interface LineChart {
  readonly title: string;
  readonly xTitle: string;
  readonly yTitle: string;
  readonly xLabels: readonly string[];
  readonly series: readonly LineSeries[];
  readonly format: (value: number) => string;
}

const PALETTE = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];

export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export function heatmapSvg(h: Heatmap): string {
  const cellW = 96;
  const cellH = 40;
  const left = 110;
  const top = 56;
  // Wide enough for the noise legend under a small grid.
  const width = Math.max(left + cellW * h.columns.length + 20, 500);
  const height = top + cellH * h.rows.length + 64;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" class="heatmap" width="${width}" height="${height}" font-family="sans-serif" font-size="12">`,
    `<text x="${width / 2}" y="20" text-anchor="middle" font-size="14">${escapeXml(h.title)}</text>`,
    `<text x="${left + (cellW * h.columns.length) / 2}" y="${top - 22}" text-anchor="middle">${escapeXml(h.columnTitle)}</text>`,
    `<text x="12" y="${top - 8}">${escapeXml(h.rowTitle)}</text>`,
  ];
  h.columns.forEach((c, j) =>
    parts.push(`<text x="${left + j * cellW + cellW / 2}" y="${top - 6}" text-anchor="middle">${escapeXml(c)}</text>`),
  );
  h.rows.forEach((r, i) => {
    const y = top + i * cellH;
    parts.push(`<text x="${left - 8}" y="${y + cellH / 2 + 4}" text-anchor="end">${escapeXml(r)}</text>`);
    h.columns.forEach((_, j) => {
      const v = h.values[i]?.[j] ?? Number.NaN;
      const fill = Number.isFinite(v) ? `hsl(${Math.round(h.scale.position(v) * 120)}, 65%, 72%)` : '#ddd';
      const x = left + j * cellW;
      parts.push(`<rect x="${x}" y="${y}" width="${cellW}" height="${cellH}" fill="${fill}" stroke="white"/>`);
      parts.push(
        `<text x="${x + cellW / 2}" y="${y + cellH / 2 + 4}" text-anchor="middle">${escapeXml(Number.isFinite(v) ? h.format(v) : '–')}</text>`,
      );
    });
  });
  if (h.highlight) {
    const x = left + h.highlight.column * cellW;
    const y = top + h.highlight.row * cellH;
    parts.push(
      `<rect class="recommended" data-row="${h.highlight.row}" data-column="${h.highlight.column}" x="${x + 1.5}" y="${y + 1.5}" width="${cellW - 3}" height="${cellH - 3}" fill="none" stroke="black" stroke-width="3"/>`,
    );
  }
  parts.push(
    `<text x="${left}" y="${height - 30}" fill="#555">${h.scale.log ? 'log colour scale; ' : ''}green is better${h.highlight ? ', outlined: recommended' : ''}</text>`,
  );
  parts.push(`<text x="${left}" y="${height - 14}" fill="#555">${escapeXml(noiseLegend(h.scale))}</text>`);
  parts.push('</svg>');
  return parts.join('\n');
}

export function lineChartSvg(c: LineChart): string {
  const plotW = Math.max(320, 80 * c.xLabels.length);
  const plotH = 240;
  const m = { top: 40, right: 160, bottom: 50, left: 80 };
  const width = m.left + plotW + m.right;
  const height = m.top + plotH + m.bottom;
  const finite = c.series.flatMap((s) => s.values.filter(Number.isFinite));
  const yMax = niceCeiling(Math.max(0, ...finite));
  const x = (i: number): number => m.left + (c.xLabels.length === 1 ? plotW / 2 : (i * plotW) / (c.xLabels.length - 1));
  const y = (v: number): number => m.top + plotH - (v / yMax) * plotH;
  const box = { className: 'line-chart', m, plotW, plotH, width, height };
  const parts = chartGrid(box, c.title, y, yMax, c.format);
  c.xLabels.forEach((label, i) =>
    parts.push(`<text x="${x(i)}" y="${m.top + plotH + 18}" text-anchor="middle">${escapeXml(label)}</text>`),
  );
  parts.push(...axisTitles(box, c.xTitle, c.yTitle));
  c.series.forEach((s, k) => {
    const color = PALETTE[k % PALETTE.length]!;
    let path = '';
    s.values.forEach((v, i) => {
      if (!Number.isFinite(v)) return;
      path += `${path === '' || !Number.isFinite(s.values[i - 1] ?? Number.NaN) ? 'M' : 'L'}${x(i).toFixed(1)},${y(v).toFixed(1)} `;
      parts.push(`<circle cx="${x(i).toFixed(1)}" cy="${y(v).toFixed(1)}" r="3" fill="${color}"/>`);
    });
    parts.push(`<path d="${path.trim()}" fill="none" stroke="${color}" stroke-width="2"/>`);
    const ly = m.top + 10 + k * 18;
    parts.push(`<line x1="${m.left + plotW + 16}" x2="${m.left + plotW + 36}" y1="${ly}" y2="${ly}" stroke="${color}" stroke-width="2"/>`);
    parts.push(`<text x="${m.left + plotW + 42}" y="${ly + 4}">${escapeXml(s.name)}</text>`);
  });
  parts.push('</svg>');
  return parts.join('\n');
}

export interface XyPoint {
  readonly x: number;
  readonly y: number;
}

export interface XySeries {
  readonly name: string;
  /** Joined in order of x. */
  readonly points: readonly XyPoint[];
  /** Colour from the palette and dash pattern: a grid's two dimensions. */
  readonly colour: number;
  readonly dash: number;
  /** Drawn thicker, named in bold (the recommendation). */
  readonly emphasised?: boolean;
}

export interface XyChart {
  readonly title: string;
  readonly xTitle: string;
  readonly yTitle: string;
  readonly series: readonly XySeries[];
  readonly formatX: (value: number) => string;
  readonly formatY: (value: number) => string;
}

const DASHES = ['', '6 3', '2 3', '8 3 2 3', '12 4'];

/** Numeric axes from 0 to a round maximum; one line (or a lone point) per series, legend on the right. */
export function xyChartSvg(c: XyChart): string {
  const plotW = 460;
  const plotH = Math.max(240, 16 * c.series.length + 20);
  const m = { top: 40, right: 220, bottom: 50, left: 80 };
  const width = m.left + plotW + m.right;
  const height = m.top + plotH + m.bottom;
  const points = c.series.flatMap((s) => s.points.filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y)));
  const xMax = niceCeiling(Math.max(0, ...points.map((p) => p.x)));
  const yMax = niceCeiling(Math.max(0, ...points.map((p) => p.y)));
  const x = (v: number): number => m.left + (v / xMax) * plotW;
  const y = (v: number): number => m.top + plotH - (v / yMax) * plotH;
  const box = { className: 'xy-chart', m, plotW, plotH, width, height };
  const parts = chartGrid(box, c.title, y, yMax, c.formatY, (k) => {
    const vx = (xMax * k) / 4;
    return `<text x="${x(vx)}" y="${m.top + plotH + 18}" text-anchor="middle">${escapeXml(c.formatX(vx))}</text>`;
  });
  parts.push(...axisTitles(box, c.xTitle, c.yTitle));
  c.series.forEach((s, k) => {
    const colour = PALETTE[s.colour % PALETTE.length]!;
    const dash = DASHES[s.dash % DASHES.length]!;
    const width = s.emphasised === true ? 3.5 : 1.5;
    const sorted = s.points.filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y)).sort((a, b) => a.x - b.x);
    const path = sorted.map((p, i) => `${i === 0 ? 'M' : 'L'}${x(p.x).toFixed(1)},${y(p.y).toFixed(1)}`).join(' ');
    if (sorted.length > 1)
      parts.push(
        `<path d="${path}" fill="none" stroke="${colour}" stroke-width="${width}"${dash === '' ? '' : ` stroke-dasharray="${dash}"`}/>`,
      );
    for (const p of sorted)
      parts.push(`<circle cx="${x(p.x).toFixed(1)}" cy="${y(p.y).toFixed(1)}" r="${s.emphasised === true ? 4.5 : 3}" fill="${colour}"/>`);
    const ly = m.top + 10 + k * 16;
    parts.push(
      `<line x1="${m.left + plotW + 16}" x2="${m.left + plotW + 40}" y1="${ly}" y2="${ly}" stroke="${colour}" stroke-width="${width}"${dash === '' ? '' : ` stroke-dasharray="${dash}"`}/>`,
    );
    parts.push(
      `<text x="${m.left + plotW + 46}" y="${ly + 4}"${s.emphasised === true ? ' font-weight="bold"' : ''}>${escapeXml(s.name)}</text>`,
    );
  });
  parts.push('</svg>');
  return parts.join('\n');
}

/** Where a chart with axes draws: its plot area inside margins `m`. */
interface ChartBox {
  readonly className: string;
  readonly m: { readonly top: number; readonly right: number; readonly bottom: number; readonly left: number };
  readonly plotW: number;
  readonly plotH: number;
  readonly width: number;
  readonly height: number;
}

/** The chart's opening tag, its title and five horizontal grid lines from 0 to `yMax`, labelled; `tick(k)` adds to each. */
function chartGrid(
  box: ChartBox,
  title: string,
  y: (v: number) => number,
  yMax: number,
  formatY: (v: number) => string,
  tick?: (k: number) => string,
): string[] {
  const { m, plotW } = box;
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" class="${box.className}" width="${box.width}" height="${box.height}" font-family="sans-serif" font-size="12">`,
    `<text x="${m.left + plotW / 2}" y="20" text-anchor="middle" font-size="14">${escapeXml(title)}</text>`,
  ];
  for (let k = 0; k <= 4; k++) {
    const v = (yMax * k) / 4;
    parts.push(`<line x1="${m.left}" x2="${m.left + plotW}" y1="${y(v)}" y2="${y(v)}" stroke="#e5e5e5"/>`);
    parts.push(`<text x="${m.left - 6}" y="${y(v) + 4}" text-anchor="end">${escapeXml(formatY(v))}</text>`);
    if (tick !== undefined) parts.push(tick(k));
  }
  return parts;
}

function axisTitles(box: ChartBox, xTitle: string, yTitle: string): string[] {
  const { m, plotW, plotH } = box;
  return [
    `<text x="${m.left + plotW / 2}" y="${box.height - 8}" text-anchor="middle">${escapeXml(xTitle)}</text>`,
    `<text transform="translate(16 ${m.top + plotH / 2}) rotate(-90)" text-anchor="middle">${escapeXml(yTitle)}</text>`,
  ];
}

/** 1, 2 or 5 × 10^k at or above `max`, so axis labels are round. */
function niceCeiling(max: number): number {
  if (max <= 0) return 1;
  const base = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 5]) if (step * base >= max) return step * base;
  return 10 * base;
}
