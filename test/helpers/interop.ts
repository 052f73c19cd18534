/**
 * Runs unmodified third-party Kafka clients against a broker for the interop tests: kcat
 * (librdkafka), confluent-kafka-python and the Java client. Each helper launches one process,
 * feeds it stdin and returns what it printed; the Java and Python programs print one JSON
 * object per line, which the test parses. A client that is not installed yields a skip reason
 * rather than a failure, so the suite still runs on a machine without Java or Python's client.
 */
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from '../../tools/codegen/main.js';
import { kafkaClasspath } from '../../tools/kafka/kafka-release.js';
import type { Header, ReadRecord } from './interop-records.js';

export const INTEROP_DIR = join(REPO_ROOT, 'test/integration/interop');

export { freePort } from '../../src/common/free-port.js';

export interface ProcessResult {
  readonly code: number | null;
  readonly stdout: Buffer;
  readonly stderr: string;
}

/** Runs a command to completion (killing it after `timeoutMs`); never rejects on a non-zero exit. */
export function runProcess(
  command: string,
  args: readonly string[],
  stdin: Buffer | string = '',
  timeoutMs = 120_000,
  onStdout?: (chunk: Buffer) => void,
): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      out.push(d);
      onStdout?.(d);
    });
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const timer = setTimeout(() => {
      err += `\n[killed after ${timeoutMs} ms]`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: Buffer.concat(out), stderr: err });
    });
    // A client that exits before reading all of stdin must not crash the test with EPIPE.
    child.stdin.on('error', () => undefined);
    child.stdin.end(stdin);
  });
}

async function runChecked(
  command: string,
  args: readonly string[],
  stdin: Buffer | string,
  timeoutMs?: number,
  onStdout?: (chunk: Buffer) => void,
): Promise<Buffer> {
  const r = await runProcess(command, args, stdin, timeoutMs, onStdout);
  if (r.code !== 0) throw new Error(`${command} ${args.join(' ')} exited with ${r.code}:\n${r.stderr}`);
  return r.stdout;
}

/** kcat with `-q` (no informational lines on stderr); rejects on a non-zero exit. */
export function kcat(args: readonly string[], stdin: Buffer | string = ''): Promise<Buffer> {
  return runChecked('kcat', ['-q', ...args], stdin, 60_000);
}

/**
 * kcat's consumer output format: partition, offset, timestamp, key length and value length as
 * numbers (length -1 for null), then the key and value bytes themselves (so binary survives),
 * then the headers as `name=value,...` (kcat has no byte-safe header rendering, so records read
 * this way carry printable header names and values without ',' or '=').
 */
const KCAT_FORMAT = '%p\t%o\t%T\t%K\t%S\t%k%s%h\n';

/** Reads every partition of `topic` from the beginning to its current end with kcat's consumer. */
export async function kcatRead(bootstrap: string, topic: string): Promise<ReadRecord[]> {
  const out = await kcat(['-b', bootstrap, '-C', '-t', topic, '-o', 'beginning', '-e', '-f', KCAT_FORMAT]);
  const records: ReadRecord[] = [];
  let pos = 0;
  const field = (): number => {
    const tab = out.indexOf(0x09, pos);
    const n = Number(out.subarray(pos, tab).toString('latin1'));
    pos = tab + 1;
    return n;
  };
  const bytes = (len: number): string | null => {
    if (len < 0) return null;
    const b = out.subarray(pos, pos + len);
    pos += len;
    return b.toString('hex');
  };
  while (pos < out.length) {
    const [partition, offset, timestamp, keyLen, valueLen] = [field(), field(), field(), field(), field()];
    const key = bytes(keyLen);
    const value = bytes(valueLen);
    const nl = out.indexOf(0x0a, pos);
    const h = out.subarray(pos, nl).toString('utf8');
    pos = nl + 1;
    const headers =
      h === ''
        ? []
        : h.split(',').map((kv): Header => {
            const eq = kv.indexOf('=');
            return eq < 0 ? [kv, null] : [kv.slice(0, eq), Buffer.from(kv.slice(eq + 1)).toString('hex')];
          });
    records.push({ partition, offset, timestamp, key, value, headers });
  }
  return records;
}

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonLine = { [key: string]: JsonValue };

function parseJsonLines(out: Buffer): JsonLine[] {
  return out
    .toString('utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as JsonLine);
}

/**
 * Runs one scenario of `JavaClients.java` (single-file source launch: no build step) with the
 * pinned Kafka release's jars, giving it `input` as JSON on stdin; returns its JSON lines. `onLine` sees
 * each line as it is printed, for tests that act while the program runs.
 */
/** `clientConfig` names a properties file every client of the scenario adds to its settings (security.protocol, ssl.*). */
export async function runJava(
  scenario: string,
  bootstrap: string,
  input: JsonValue = null,
  onLine?: (line: JsonLine) => void,
  clientConfig?: string,
): Promise<JsonLine[]> {
  let partial = '';
  const onStdout =
    onLine &&
    ((chunk: Buffer): void => {
      const lines = (partial + chunk.toString('utf8')).split('\n');
      partial = lines.pop()!;
      for (const l of lines) if (l.trim() !== '') onLine(JSON.parse(l) as JsonLine);
    });
  const out = await runChecked('java', javaClientArgs(scenario, bootstrap, clientConfig), JSON.stringify(input), 180_000, onStdout);
  return parseJsonLines(out);
}

/** The `java` arguments that launch one scenario of `JavaClients.java` against `bootstrap`. */
export function javaClientArgs(scenario: string, bootstrap: string, clientConfig?: string): string[] {
  return [
    '-Xmx256m',
    ...(clientConfig === undefined ? [] : [`-Dclient.config=${clientConfig}`]),
    '-XX:TieredStopAtLevel=1', // these programs are short-lived: quick start beats peak speed
    `-Dlog4j2.configurationFile=${join(INTEROP_DIR, 'log4j2-stderr.properties')}`,
    '-cp',
    kafkaClasspath(),
    join(INTEROP_DIR, 'JavaClients.java'),
    scenario,
    bootstrap,
  ];
}

/**
 * The first interpreter that can import confluent_kafka: Debian's python3-confluent-kafka lives
 * in /usr/bin/python3's dist-packages, which a python3 earlier on PATH (pyenv) does not see.
 */
function findPython(): string | undefined {
  const candidates = [process.env['PYTHON'], 'python3', '/usr/bin/python3'].filter((c): c is string => c !== undefined);
  return candidates.find((c) => spawnSync(c, ['-c', 'import confluent_kafka']).status === 0);
}

/** The interpreter that imports confluent_kafka, or undefined (then PYTHON_SKIP says why). */
export const PYTHON = findPython();

/** Why the confluent-kafka-python tests cannot run here, or undefined when they can. */
export const PYTHON_SKIP: string | undefined =
  PYTHON === undefined ? 'python3 cannot import confluent_kafka (apt-get install python3-confluent-kafka)' : undefined;

/** Runs one scenario of `confluent_clients.py` with `input` as JSON on stdin; returns its JSON lines. */
export async function runPython(scenario: string, bootstrap: string, input: JsonValue = null): Promise<JsonLine[]> {
  if (PYTHON === undefined) throw new Error(PYTHON_SKIP);
  const out = await runChecked(PYTHON, [join(INTEROP_DIR, 'confluent_clients.py'), scenario, bootstrap], JSON.stringify(input), 120_000);
  return parseJsonLines(out);
}
