/**
 * `npm run bench:tls`: what TLS costs Sluice. One broker with a PLAINTEXT and an SSL listener
 * (PEM keystore, TLS 1.3, no client certificates); the same Java clients write N MB with Kafka's
 * ProducerPerformance (1 KiB records, acks=1, no compression) and read it back twice with
 * BenchTool's assign() consumer, over each listener in turn, the listeners alternating from one
 * repetition to the next. Over PLAINTEXT fetches go out with sendfile; over SSL the broker reads
 * the log into memory and encrypts it (no kernel TLS on this machine). Reports MB/s and broker CPU
 * seconds per GB for both directions, and SSL/PLAINTEXT ratios. Writes <out>/tls.{json,md}.
 *
 *   npm run bench:tls -- [--mb N] [--reps N] [--partitions N] [--out DIR]
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateTlsFiles } from '@sluice/cli/tls-certificates.js';
import { repoRoot } from '../../tools/kafka/kafka-release.js';
import { spawnSluice } from '../../tools/sluice/sluice-process.js';
import { lastJson, parseProducerPerformance, prepareJavaTools, runJava, type JavaTools } from './java-tools.js';
import { table } from './md-table.js';
import { cpuSeconds } from './proc-stats.js';

interface Options {
  mb: number;
  reps: number;
  partitions: number;
  out: string;
}

type ListenerName = 'PLAINTEXT' | 'SSL';

interface Result {
  readonly listener: ListenerName;
  readonly rep: number;
  readonly direction: 'produce' | 'consume';
  readonly bytes: number;
  readonly mbPerSecond: number;
  readonly brokerCpuSecondsPerGB: number;
}

const RECORD_SIZE = 1024;
const SEGMENT_BYTES = String(1024 * 1024 * 1024);
const READS = 2;

function parse(argv: readonly string[]): Options {
  const o: Options = {
    mb: 1024,
    reps: 2,
    partitions: 8,
    out: join(repoRoot(), 'bench', 'results', `${new Date().toISOString().slice(0, 10)}-tls`),
  };
  for (let i = 0; i < argv.length; i += 2) {
    const [k, v] = [argv[i], argv[i + 1]];
    if (v === undefined) throw new Error(`${k} needs a value`);
    if (k === '--mb') o.mb = Number(v);
    else if (k === '--reps') o.reps = Number(v);
    else if (k === '--partitions') o.partitions = Number(v);
    else if (k === '--out') o.out = v;
    else throw new Error(`unknown option ${k}`);
  }
  return o;
}

const log = (m: string): void => void process.stderr.write(`[bench:tls] ${m}\n`);

interface Listener {
  readonly name: ListenerName;
  readonly bootstrap: string;
  /** Client settings for it, as key=value. */
  readonly clientProps: readonly string[];
  /** The same as a properties file, for BenchTool's consumer. */
  readonly clientConfig: string;
}

async function measure(tools: JavaTools, pid: number, admin: string, l: Listener, o: Options, rep: number): Promise<Result[]> {
  const topic = `tls-${l.name.toLowerCase()}-${rep}`;
  await runJava(tools, 'BenchTool', ['create', admin, topic, String(o.partitions), SEGMENT_BYTES]);
  const records = Math.round((o.mb * 1024 * 1024) / RECORD_SIZE);
  const results: Result[] = [];
  try {
    const cpuBefore = cpuSeconds(pid);
    const produced = await runJava(tools, 'org.apache.kafka.tools.ProducerPerformance', [
      '--topic',
      topic,
      '--num-records',
      String(records),
      '--record-size',
      String(RECORD_SIZE),
      '--throughput',
      '-1',
      '--command-property',
      `bootstrap.servers=${l.bootstrap}`,
      'acks=1',
      'compression.type=none',
      ...l.clientProps,
    ]);
    const p = parseProducerPerformance(produced.stdout);
    const bytes = p.records * RECORD_SIZE;
    results.push({
      listener: l.name,
      rep,
      direction: 'produce',
      bytes,
      mbPerSecond: (p.recordsPerSecond * RECORD_SIZE) / 1e6,
      brokerCpuSecondsPerGB: (cpuSeconds(pid) - cpuBefore) / (bytes / 1e9),
    });
    for (let i = 0; i < READS; i++) {
      const before = cpuSeconds(pid);
      const run = await runJava(tools, 'BenchTool', ['consume', l.bootstrap, topic], 600_000, [`-Dclient.config=${l.clientConfig}`]);
      const r = lastJson<{ records: number; bytes: number; seconds: number }>(run);
      results.push({
        listener: l.name,
        rep,
        direction: 'consume',
        bytes: r.bytes,
        mbPerSecond: r.bytes / r.seconds / 1e6,
        brokerCpuSecondsPerGB: (cpuSeconds(pid) - before) / (r.bytes / 1e9),
      });
    }
  } finally {
    await runJava(tools, 'BenchTool', ['delete', admin, topic]);
  }
  for (const r of results)
    log(`${l.name} rep ${rep} ${r.direction}: ${r.mbPerSecond.toFixed(1)} MB/s, ${r.brokerCpuSecondsPerGB.toFixed(2)} broker CPU s/GB`);
  return results;
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** One-minute load averages at the start and the end: other work on the machine shows here. */
interface Load {
  readonly start: number;
  readonly end: number;
}

function report(results: readonly Result[], o: Options, load: Load): string {
  const of = (l: ListenerName, d: Result['direction'], f: (r: Result) => number): number =>
    median(results.filter((r) => r.listener === l && r.direction === d).map(f));
  const rows = (['produce', 'consume'] as const).map((d) => {
    const mbps = (l: ListenerName): number => of(l, d, (r) => r.mbPerSecond);
    const cpu = (l: ListenerName): number => of(l, d, (r) => r.brokerCpuSecondsPerGB);
    return [
      d,
      mbps('PLAINTEXT').toFixed(1),
      mbps('SSL').toFixed(1),
      `${(mbps('SSL') / mbps('PLAINTEXT')).toFixed(2)}x`,
      cpu('PLAINTEXT').toFixed(2),
      cpu('SSL').toFixed(2),
      `${(cpu('SSL') / cpu('PLAINTEXT')).toFixed(2)}x`,
    ];
  });
  return [
    `# TLS cost: PLAINTEXT vs SSL listener of one Sluice broker`,
    '',
    `${o.mb} MB of ${RECORD_SIZE}-byte records (acks=1, no compression) over ${o.partitions} partitions, read back ${READS} times per repetition from the page cache; ${o.reps} repetitions per listener, alternating; medians. Same Java clients (kafka-clients, TLS 1.3) on both; broker CPU is the whole broker process.`,
    '',
    `One-minute load average ${load.start.toFixed(1)} at the start, ${load.end.toFixed(1)} at the end, on 2 cores shared with other work: the absolute numbers vary from run to run; the ratios are what to read.`,
    '',
    table(['direction', 'PLAINTEXT MB/s', 'SSL MB/s', 'SSL/PLAINTEXT', 'PLAINTEXT CPU s/GB', 'SSL CPU s/GB', 'SSL/PLAINTEXT CPU'], rows),
    '',
    'Over PLAINTEXT a fetch sends the log with sendfile (zero copy). Over SSL the broker reads the log into memory and writes it through OpenSSL: kernel TLS, which would keep sendfile, is not available on this machine (no `tls` in /proc/sys/net/ipv4/tcp_available_ulp). The clients pay for TLS too, on the same 2 cores.',
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  const o = parse(process.argv.slice(2));
  mkdirSync(o.out, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), 'sluice-bench-tls-'));
  try {
    const tools = await prepareJavaTools(work);
    const files = generateTlsFiles({ dir: join(work, 'tls'), password: 'bench' });
    const broker = await spawnSluice({
      overrides: [
        'listeners=PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0',
        `log.dirs=${join(work, 'data')}`,
        'ssl.keystore.type=PEM',
        `ssl.keystore.location=${files.brokerPem}`,
        'log.segment.delete.delay.ms=1000',
      ],
      env: process.env,
      startTimeoutMs: 60_000,
    });
    const pid = broker.child.pid!;
    try {
      const sslProps = ['security.protocol=SSL', 'ssl.truststore.type=PEM', `ssl.truststore.location=${files.caCert}`];
      const plainConfig = join(work, 'plaintext.properties');
      const sslConfig = join(work, 'ssl.properties');
      writeFileSync(plainConfig, '');
      writeFileSync(sslConfig, `${sslProps.join('\n')}\n`);
      const listeners: Listener[] = [
        { name: 'PLAINTEXT', bootstrap: broker.listeners.get('PLAINTEXT')!, clientProps: [], clientConfig: plainConfig },
        { name: 'SSL', bootstrap: broker.listeners.get('SSL')!, clientProps: sslProps, clientConfig: sslConfig },
      ];
      const results: Result[] = [];
      const startLoad = loadavg()[0]!;
      for (let rep = 0; rep < o.reps; rep++) {
        const order = rep % 2 === 0 ? listeners : [...listeners].reverse();
        for (const l of order) results.push(...(await measure(tools, pid, broker.bootstrap, l, o, rep)));
      }
      const load: Load = { start: startLoad, end: loadavg()[0]! };
      writeFileSync(join(o.out, 'tls.json'), `${JSON.stringify({ options: o, load, results }, null, 2)}\n`);
      writeFileSync(join(o.out, 'tls.md'), report(results, o, load));
      log(`wrote ${join(o.out, 'tls.md')}`);
    } finally {
      broker.child.kill('SIGTERM');
      await new Promise((r) => broker.child.once('exit', r));
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
