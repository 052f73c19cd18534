/**
 * franz-go's own share-group tests (pkg/kgo, the version pinned in ./go.mod, unmodified) run
 * against a broker: the test binary is built from the module cache with `go test -c`, then run
 * with franz-go's KGO_* environment and its verbose output read back into one result per test.
 */
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from '../kafka/kafka-release.js';

/** The real-broker share-group tests of pkg/kgo; each skips itself when the broker lacks ShareFetch v2 / ShareAcknowledge v2. */
export const FRANZ_SHARE_TESTS = ['TestShareGroup', 'TestShareGroupETL', 'TestShareGroupAckOnClose', 'TestShareGroupOffsetsAdmin'] as const;

export type TestOutcome = 'PASS' | 'FAIL' | 'SKIP';

export interface TestResult {
  readonly name: string;
  readonly outcome: TestOutcome;
  readonly seconds: number;
  /** The test's own lines (t.Log, t.Error, skip reasons), in the order go test printed them. */
  readonly output: readonly string[];
}

export interface SuiteRun {
  /** One per test that go test reported (with -count N, N per test). */
  readonly results: readonly TestResult[];
  /** The binary's exit code; null when it was killed (the run timed out). */
  readonly exitCode: number | null;
  readonly wallSeconds: number;
  /** Everything the binary wrote, stdout and stderr interleaved. */
  readonly log: string;
}

export interface SuiteOptions {
  /** The `go test -c` binary of pkg/kgo (buildKgoTests). */
  readonly binary: string;
  readonly bootstrap: string;
  /** KGO_TEST_RECORDS: records the ETL test pushes through its two levels (franz-go's default is 500000). */
  readonly records: number;
  readonly count?: number;
  /** KGO_TEST_CHAOS: the ETL consumers' connections die every 0.5-1.5 s. */
  readonly chaos?: boolean;
  readonly timeoutMs: number;
}

export const FRANZ_SHARE_MODULE = join(repoRoot(), 'tools', 'franz-share');
export const KGO_TEST_BINARY = join(repoRoot(), 'dist', 'tools', 'franz-share', 'kgo.test');

/**
 * Builds pkg/kgo's test binary; the module and its test dependencies come from the Go module
 * cache or proxy, as `go test` fetches them. Returns why it could not, or undefined.
 */
export function buildKgoTests(output = KGO_TEST_BINARY, timeoutMs = 600_000): string | undefined {
  const build = spawnSync('go', ['test', '-c', '-o', output, 'github.com/twmb/franz-go/pkg/kgo'], {
    cwd: FRANZ_SHARE_MODULE,
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: timeoutMs,
    encoding: 'utf8',
  });
  if (build.error !== undefined) return `go test -c failed: ${build.error.message}`;
  if (build.status !== 0) return `go test -c failed: ${build.stderr.trim().split('\n').slice(-3).join(' / ')}`;
  return undefined;
}

const RESULT_LINE = /^\s*--- (PASS|FAIL|SKIP): (\S+) \((\d+(?:\.\d+)?)s\)$/;
/** go test -v names the test whose output follows: === RUN / CONT / NAME / PAUSE. */
const HEADER_LINE = /^=== (?:RUN|CONT|NAME|PAUSE)\s+(\S+)$/;

/**
 * The per-test results of `go test -v` output. A test's indented lines belong to the last test
 * a header or result line named; parallel tests interleave, and go test names the test again
 * (=== NAME) whenever the output switches to another one.
 */
export function parseGoTestOutput(text: string): TestResult[] {
  const outputs = new Map<string, string[]>();
  const results: TestResult[] = [];
  let current: string | undefined;
  for (const line of text.split('\n')) {
    const header = HEADER_LINE.exec(line);
    if (header !== null) {
      current = header[1]!;
      continue;
    }
    const result = RESULT_LINE.exec(line);
    if (result !== null) {
      const name = result[2]!;
      results.push({ name, outcome: result[1] as TestOutcome, seconds: Number(result[3]), output: outputs.get(name) ?? [] });
      outputs.delete(name);
      current = name;
      continue;
    }
    if (current !== undefined && /^\s{4}\S/.test(line)) {
      const lines = outputs.get(current) ?? [];
      lines.push(line.trim());
      outputs.set(current, lines);
    }
  }
  return results;
}

/** Runs the four share-group tests against `bootstrap` (a single broker: replication factor 1). */
export async function runShareSuite(options: SuiteOptions): Promise<SuiteRun> {
  const pattern = `^(${FRANZ_SHARE_TESTS.join('|')})$`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    KGO_SEEDS: options.bootstrap,
    KGO_TEST_RF: '1',
    KGO_TEST_RECORDS: String(options.records),
  };
  if (options.chaos === true) env['KGO_TEST_CHAOS'] = '1';
  else delete env['KGO_TEST_CHAOS'];
  const args = [
    '-test.run',
    pattern,
    '-test.v',
    '-test.count',
    String(options.count ?? 1),
    '-test.timeout',
    `${Math.ceil(options.timeoutMs / 1000)}s`,
  ];
  const started = Date.now();
  const child = spawn(options.binary, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout.on('data', (d: Buffer) => (log += d.toString()));
  child.stderr.on('data', (d: Buffer) => (log += d.toString()));
  // go test's own -test.timeout panics the binary first; this is the bound if that hangs too.
  const killer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs + 30_000);
  const exitCode = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve(code));
  }).finally(() => clearTimeout(killer));
  return { results: parseGoTestOutput(log), exitCode, wallSeconds: (Date.now() - started) / 1000, log };
}

/** A table of one run's results: one line per test, plus the tests go test never reported. */
export function summarize(target: string, run: SuiteRun): string {
  const lines = run.results.map((r) => `${target.padEnd(8)} ${r.outcome} ${r.name.padEnd(28)} ${r.seconds.toFixed(2).padStart(7)}s`);
  for (const name of FRANZ_SHARE_TESTS) {
    if (!run.results.some((r) => r.name === name))
      lines.push(`${target.padEnd(8)} NONE ${name.padEnd(28)}  (not reported: exit ${run.exitCode})`);
  }
  lines.push(`${target.padEnd(8)} wall ${run.wallSeconds.toFixed(1)}s, exit ${run.exitCode}`);
  return lines.join('\n');
}

/** Every named test reported, and each time it passed: a skip (broker lacks the APIs) is not a pass. */
export function allPassed(run: SuiteRun): boolean {
  return (
    run.exitCode === 0 &&
    FRANZ_SHARE_TESTS.every((name) => run.results.some((r) => r.name === name)) &&
    run.results.every((r) => r.outcome === 'PASS')
  );
}
