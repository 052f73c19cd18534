/**
 * A grouped bar chart as a standalone SVG string: categories along x, one bar per series, the
 * value printed above each bar. Deliberately plain — no dependencies, readable on GitHub.
 */
export interface Series {
  readonly name: string;
  readonly color: string;
  /** One value per category; null draws no bar (workload not run for that broker). */
  readonly values: readonly (number | null)[];
}

export interface BarChart {
  readonly title: string;
  readonly unit: string;
  readonly categories: readonly string[];
  readonly series: readonly Series[];
}

const WIDTH_PER_CATEGORY = 110;
const PLOT_HEIGHT = 240;
const MARGIN = { top: 50, right: 20, bottom: 65, left: 70 };

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function formatValue(v: number): string {
  if (v === 0) return '0';
  return v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2);
}

/** A "nice" axis maximum (1, 2 or 5 × 10^k) at or above the largest value. */
function axisMax(max: number): number {
  if (max <= 0) return 1;
  const base = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 5, 10]) if (step * base >= max) return step * base;
  return 10 * base;
}

/** The opening of every chart: the SVG element, a white background, the title, and 5 horizontal grid lines labelled on the left. */
function chartFrame(
  width: number,
  height: number,
  title: string,
  plotWidth: number,
  top: number,
  y: (v: number) => number,
  label: (v: number) => string,
): string[] {
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="11">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
    `<text x="${width / 2}" y="20" text-anchor="middle" font-size="14">${escapeXml(title)}</text>`,
  ];
  for (let i = 0; i <= 4; i++) {
    const v = (top * i) / 4;
    parts.push(`<line x1="${MARGIN.left}" x2="${MARGIN.left + plotWidth}" y1="${y(v)}" y2="${y(v)}" stroke="#ddd"/>`);
    parts.push(`<text x="${MARGIN.left - 6}" y="${y(v) + 4}" text-anchor="end">${label(v)}</text>`);
  }
  return parts;
}

export function groupedBarChart(chart: BarChart): string {
  const plotWidth = Math.max(chart.categories.length * WIDTH_PER_CATEGORY, 220);
  const width = MARGIN.left + plotWidth + MARGIN.right;
  const height = MARGIN.top + PLOT_HEIGHT + MARGIN.bottom;
  const all = chart.series.flatMap((s) => s.values.filter((v): v is number => v !== null));
  const top = axisMax(Math.max(0, ...all));
  const y = (v: number): number => MARGIN.top + PLOT_HEIGHT - (v / top) * PLOT_HEIGHT;
  const parts = chartFrame(width, height, chart.title, plotWidth, top, y, formatValue);
  parts.push(
    `<text transform="translate(16 ${MARGIN.top + PLOT_HEIGHT / 2}) rotate(-90)" text-anchor="middle">${escapeXml(chart.unit)}</text>`,
  );
  const groupWidth = plotWidth / Math.max(chart.categories.length, 1);
  const barWidth = (groupWidth * 0.75) / Math.max(chart.series.length, 1);
  chart.categories.forEach((category, c) => {
    const groupLeft = MARGIN.left + c * groupWidth + groupWidth * 0.125;
    chart.series.forEach((s, k) => {
      const v = s.values[c];
      if (v === null || v === undefined) return;
      const x = groupLeft + k * barWidth;
      parts.push(`<rect x="${x}" y="${y(v)}" width="${barWidth - 2}" height="${MARGIN.top + PLOT_HEIGHT - y(v)}" fill="${s.color}"/>`);
      parts.push(`<text x="${x + barWidth / 2}" y="${y(v) - 3}" text-anchor="middle" font-size="9">${formatValue(v)}</text>`);
    });
    const labelX = MARGIN.left + c * groupWidth + groupWidth / 2;
    const lines = category.split('\n');
    lines.forEach((line, l) => {
      parts.push(`<text x="${labelX}" y="${MARGIN.top + PLOT_HEIGHT + 16 + l * 13}" text-anchor="middle">${escapeXml(line)}</text>`);
    });
  });
  // Legend under the title: the space below the plot holds up to four lines of category label.
  chart.series.forEach((s, k) => {
    const x = MARGIN.left + k * 110;
    const ly = 38;
    parts.push(`<rect x="${x}" y="${ly - 9}" width="10" height="10" fill="${s.color}"/>`);
    parts.push(`<text x="${x + 14}" y="${ly}">${escapeXml(s.name)}</text>`);
  });
  parts.push('</svg>');
  return parts.join('\n') + '\n';
}

export interface LineSeries {
  readonly name: string;
  readonly color: string;
  /** [x, y] in x order. */
  readonly points: readonly (readonly [number, number])[];
}

export interface LineChart {
  readonly title: string;
  readonly xUnit: string;
  readonly yUnit: string;
  readonly series: readonly LineSeries[];
}

const LINE_PLOT_WIDTH = 600;

/** Axis labels: whole numbers without decimals. */
function tickLabel(v: number): string {
  return Number.isInteger(v) ? String(v) : formatValue(v);
}

/** A step of 1, 2 or 5 × 10^k giving at most 10 ticks up to `max`. */
function tickStep(max: number): number {
  for (let base = 1; ; base *= 10) for (const step of [1, 2, 5]) if (max / (step * base) <= 10) return step * base;
}

/** Lines over a numeric x axis from 0 with a dot at every point; y starts at 0 so a drop shows at its true size. */
export function lineChart(chart: LineChart): string {
  const width = MARGIN.left + LINE_PLOT_WIDTH + MARGIN.right;
  const height = MARGIN.top + PLOT_HEIGHT + MARGIN.bottom;
  const points = chart.series.flatMap((s) => s.points);
  const xTop = Math.max(1, ...points.map(([px]) => px));
  const yTop = axisMax(Math.max(0, ...points.map(([, py]) => py)));
  const x = (v: number): number => MARGIN.left + (v / xTop) * LINE_PLOT_WIDTH;
  const y = (v: number): number => MARGIN.top + PLOT_HEIGHT - (v / yTop) * PLOT_HEIGHT;
  const parts = chartFrame(width, height, chart.title, LINE_PLOT_WIDTH, yTop, y, tickLabel);
  const step = tickStep(xTop);
  for (let xv = 0; xv <= xTop; xv += step) {
    parts.push(`<text x="${x(xv)}" y="${MARGIN.top + PLOT_HEIGHT + 16}" text-anchor="middle">${tickLabel(xv)}</text>`);
  }
  parts.push(`<line x1="${MARGIN.left}" x2="${MARGIN.left + LINE_PLOT_WIDTH}" y1="${y(0)}" y2="${y(0)}" stroke="#888"/>`);
  parts.push(
    `<text transform="translate(16 ${MARGIN.top + PLOT_HEIGHT / 2}) rotate(-90)" text-anchor="middle">${escapeXml(chart.yUnit)}</text>`,
  );
  parts.push(
    `<text x="${MARGIN.left + LINE_PLOT_WIDTH / 2}" y="${MARGIN.top + PLOT_HEIGHT + 36}" text-anchor="middle">${escapeXml(chart.xUnit)}</text>`,
  );
  for (const s of chart.series) {
    parts.push(
      `<polyline fill="none" stroke="${s.color}" stroke-width="2" points="${s.points.map(([px, py]) => `${x(px)},${y(py)}`).join(' ')}"/>`,
    );
    for (const [px, py] of s.points) parts.push(`<circle cx="${x(px)}" cy="${y(py)}" r="3" fill="${s.color}"/>`);
  }
  chart.series.forEach((s, k) => {
    const lx = MARGIN.left + k * 110;
    parts.push(`<rect x="${lx}" y="29" width="10" height="10" fill="${s.color}"/>`);
    parts.push(`<text x="${lx + 14}" y="38">${escapeXml(s.name)}</text>`);
  });
  parts.push('</svg>');
  return parts.join('\n') + '\n';
}
