/**
 * Reads Prometheus' text exposition format (version 0.0.4), the body of a `/metrics` scrape:
 * `# TYPE` lines and samples `name{label="value",...} value [timestamp]`. Comments and `# HELP`
 * are skipped; label values are unescaped (`\\`, `\"`, `\n`).
 */
export interface MetricSample {
  readonly name: string;
  readonly labels: ReadonlyMap<string, string>;
  readonly value: number;
}

export interface MetricsScrape {
  readonly samples: readonly MetricSample[];
  /** Metric family name → its `# TYPE` (counter, gauge, histogram, summary, untyped). */
  readonly types: ReadonlyMap<string, string>;
}

export class MetricsParseError extends Error {
  constructor(line: number, message: string) {
    super(`metrics line ${line}: ${message}`);
    this.name = 'MetricsParseError';
  }
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;

export function parsePrometheusText(text: string): MetricsScrape {
  const samples: MetricSample[] = [];
  const types = new Map<string, string>();
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '') continue;
    if (line.startsWith('#')) {
      const type = /^#\s*TYPE\s+(\S+)\s+(\S+)/.exec(line);
      if (type) types.set(type[1]!, type[2]!);
      continue;
    }
    samples.push(parseSample(line, i + 1));
  }
  return { samples, types };
}

function parseSample(line: string, lineNumber: number): MetricSample {
  const name = NAME.exec(line)?.[0];
  if (name === undefined) throw new MetricsParseError(lineNumber, `no metric name in '${line}'`);
  let at = name.length;
  const labels = new Map<string, string>();
  if (line[at] === '{') {
    at++;
    for (;;) {
      while (line[at] === ' ' || line[at] === ',') at++;
      if (line[at] === '}') {
        at++;
        break;
      }
      const label = NAME.exec(line.slice(at))?.[0];
      if (label === undefined || line[at + label.length] !== '=' || line[at + label.length + 1] !== '"') {
        throw new MetricsParseError(lineNumber, `bad label at column ${at + 1} in '${line}'`);
      }
      at += label.length + 2;
      let value = '';
      while (at < line.length && line[at] !== '"') {
        if (line[at] === '\\') {
          const next = line[++at];
          value += next === 'n' ? '\n' : (next ?? '');
        } else {
          value += line[at];
        }
        at++;
      }
      if (at >= line.length) throw new MetricsParseError(lineNumber, `unterminated label value in '${line}'`);
      at++;
      labels.set(label, value);
    }
  }
  const valueText = line.slice(at).trim().split(/\s+/)[0] ?? '';
  const value = parseValue(valueText);
  if (value === null) throw new MetricsParseError(lineNumber, `bad value '${valueText}' in '${line}'`);
  return { name, labels, value };
}

/** Values are Go floats, whose special values are case-insensitive (prom-client writes `Nan`). */
function parseValue(text: string): number | null {
  const lower = text.toLowerCase();
  if (lower === '+inf' || lower === 'inf') return Number.POSITIVE_INFINITY;
  if (lower === '-inf') return Number.NEGATIVE_INFINITY;
  if (lower === 'nan') return Number.NaN;
  if (text === '' || !/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) return null;
  return Number(text);
}
