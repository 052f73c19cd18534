/**
 * `npm test`: runs every compiled test file (or the files and folders given as arguments) with
 * node:test, two files at a time, each file in its own process, with two bounds so that nothing
 * can hang the suite:
 * - each test gets the per-test timeout that `npm test` passes as `--test-timeout` (node hands
 *   it to every file's process); a test that needs longer says so with its own `timeout`;
 * - each file, hooks included, gets FILE_TIMEOUT_MS, after which its process is killed and the
 *   file fails.
 * Node 20's `node --test --test-timeout` applies the one value to whole files as well as to tests,
 * which is why the file bound is set here, through `run()`.
 *
 * The report ends with a list of the failed tests, file and first lines of the error, because a CI
 * log keeps only its tail and a failure in the middle of 1,700 tests would otherwise be lost.
 *
 * Only compiled tests whose TypeScript source still exists run: `tsc` does not delete the output
 * of a source that was moved or removed, and such a leftover would test code that is gone.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { run } from 'node:test';
import { spec, tap } from 'node:test/reporters';
import { fileURLToPath } from 'node:url';

const FILE_TIMEOUT_MS = 15 * 60_000;
const CONCURRENCY = 2;

function testFiles(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .sort()
    .flatMap((name) => {
      const child = join(path, name);
      if (statSync(child).isDirectory()) return testFiles(child);
      return name.endsWith('.test.js') ? [child] : [];
    });
}

const tests = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
const repo = resolve(tests, '..', '..');
const packagesDir = join(repo, 'packages');
/** Each workspace package's compiled tests, beside the broker's. */
const packageTests = readdirSync(packagesDir)
  .sort()
  .map((name) => join(packagesDir, name, 'dist', 'test'))
  .filter((path) => existsSync(path));
/** `<root>/dist/x.js` was compiled from `<root>/x.ts`, the root being the repository or a package. */
function hasSource(compiled: string): boolean {
  const at = compiled.lastIndexOf('/dist/');
  return at >= 0 && existsSync(`${compiled.slice(0, at)}/${compiled.slice(at + '/dist/'.length)}`.replace(/\.js$/, '.ts'));
}
const roots = process.argv.length > 2 ? process.argv.slice(2).map((p) => resolve(p)) : [tests, ...packageTests];
const files = roots.flatMap(testFiles).filter(hasSource);

interface Failure {
  file: string;
  name: string;
  error: string;
}

function errorText(error: unknown): string {
  const cause = error instanceof Error && error.cause !== undefined ? error.cause : error;
  const text = cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause);
  return text.split('\n').slice(0, 6).join('\n    ');
}

const failures: Failure[] = [];
const stream = run({ files, concurrency: CONCURRENCY, timeout: FILE_TIMEOUT_MS });
stream.on('test:fail', (event: { name: string; file?: string; details: { error: unknown } }) => {
  process.exitCode = 1;
  failures.push({ file: relative(repo, event.file ?? '?'), name: event.name, error: errorText(event.details.error) });
});
const report = (process.stdout.isTTY ? stream.compose(new spec()) : stream.compose(tap)) as NodeJS.ReadableStream;
report.pipe(process.stdout, { end: false });
report.on('end', () => {
  if (failures.length === 0) return;
  process.stdout.write(`\n# ${failures.length} failed:\n`);
  for (const f of failures) process.stdout.write(`# - ${f.file} > ${f.name}\n#     ${f.error.replace(/\n/g, '\n# ')}\n`);
});
