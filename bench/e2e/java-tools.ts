/**
 * The load generators: Kafka's own ProducerPerformance for produce, and BenchTool.java (assign()
 * consumer, fixed-rate latency probe, admin, loopback) compiled once against the same jars. The
 * same Java client drives both brokers, so differences are the brokers'.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { ensureKafkaLibs, kafkaClasspath, repoRoot } from '../../tools/kafka/kafka-release.js';
import { CpuSampler } from './proc-stats.js';

export interface JavaTools {
  readonly classpath: string;
}

export interface ToolRun {
  readonly stdout: string;
  /** CPU seconds the generator process used (sampled, so it can miss the last ~0.1 s). */
  readonly generatorCpuSeconds: number;
}

const QUIET_LOG4J = (): string => `-Dlog4j2.configurationFile=${join(repoRoot(), 'tools', 'golden', 'log4j2-quiet.properties')}`;

export async function prepareJavaTools(outDir: string): Promise<JavaTools> {
  const libs = await ensureKafkaLibs();
  const classes = join(outDir, 'classes');
  mkdirSync(classes, { recursive: true });
  const kafkaCp = kafkaClasspath(libs);
  execFileSync('javac', ['-nowarn', '-cp', kafkaCp, '-d', classes, join(repoRoot(), 'bench', 'e2e', 'BenchTool.java')], {
    stdio: 'inherit',
  });
  return { classpath: `${kafkaCp}:${classes}` };
}

/** `jvmArgs` go before the class, e.g. -Dclient.config=FILE for BenchTool's consumer. */
export function runJava(
  tools: JavaTools,
  mainClass: string,
  args: readonly string[],
  timeoutMs = 600_000,
  jvmArgs: readonly string[] = [],
): Promise<ToolRun> {
  // A fixed heap: the generator sizes and collects the same way whichever broker it drives.
  return runTool('java', ['-Xms512m', '-Xmx512m', QUIET_LOG4J(), ...jvmArgs, '-cp', tools.classpath, mainClass, ...args], timeoutMs);
}

/** Runs a load generator to its end with its CPU time sampled; a non-zero exit rejects with its output's tail. */
export function runTool(command: string, args: readonly string[], timeoutMs = 600_000): Promise<ToolRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const sampler = new CpuSampler(child.pid!);
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('close', (code) => {
      clearTimeout(timer);
      const generatorCpuSeconds = sampler.stop();
      if (code === 0) resolve({ stdout: out, generatorCpuSeconds });
      else reject(new Error(`${command} ${args.slice(-6).join(' ')} exited with ${code}:\n${err.slice(-2000)}${out.slice(-2000)}`));
    });
  });
}

/** The last line of a BenchTool command is one JSON object. */
export function lastJson<T>(run: ToolRun): T {
  const lines = run.stdout.trim().split('\n');
  return JSON.parse(lines[lines.length - 1]!) as T;
}

export interface ProducerPerfResult {
  readonly records: number;
  readonly recordsPerSecond: number;
  readonly avgLatencyMs: number;
  readonly p99LatencyMs: number;
}

/** Parses ProducerPerformance's final summary line. */
export function parseProducerPerformance(stdout: string): ProducerPerfResult {
  const m =
    /(\d+) records sent, ([\d.]+) records\/sec \([\d.]+ MB\/sec\), ([\d.]+) ms avg latency, [\d.]+ ms max latency, \d+ ms 50th, \d+ ms 95th, (\d+) ms 99th/.exec(
      stdout,
    );
  if (!m) throw new Error(`no ProducerPerformance summary in:\n${stdout.slice(-2000)}`);
  return { records: Number(m[1]), recordsPerSecond: Number(m[2]), avgLatencyMs: Number(m[3]), p99LatencyMs: Number(m[4]) };
}
