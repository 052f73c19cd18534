// Drives kcat (librdkafka) through metadata, produce with every codec (auto-creating the topic)
// and a balanced consumer group. Each kcat run is its own process, so each scenario gets its own
// connections.
import { spawn } from 'node:child_process';
import { ClientDriverError, type ClientRun } from './kafkajs-client.js';

const CODECS = ['none', 'snappy', 'lz4', 'zstd'] as const;
const MESSAGES_PER_BATCH = 3;

function kcat(args: string[], stdin: string, timeoutMs = 30_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('kcat', args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGTERM'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(stdout);
      else reject(new ClientDriverError(`kcat ${args.join(' ')} exited ${code ?? signal}: ${stderr.trim()}`));
    });
    child.stdin.end(stdin);
  });
}

export async function driveKcat(run: ClientRun): Promise<void> {
  const common = ['-b', run.bootstrap, '-X', 'client.id=golden-kcat'];

  for (const codec of CODECS) {
    run.scenario(`produce-${codec}`);
    const lines = Array.from({ length: MESSAGES_PER_BATCH }, (_, i) => `key-${codec}-${i}:value ${i} from kcat, ${codec}`);
    // -K: splits each line into key and value; -H adds a header to every message.
    await kcat(
      [...common, '-P', '-t', run.topic, '-K', ':', '-H', 'source=kcat', '-H', `codec=${codec}`, '-z', codec, '-X', 'linger.ms=50'],
      lines.join('\n') + '\n',
    );
  }

  run.scenario('metadata');
  await kcat([...common, '-L', '-t', run.topic], '');

  run.scenario('list-offsets');
  await kcat([...common, '-Q', '-t', `${run.topic}:0:-1`], '');

  run.scenario('consume');
  const consumed = await kcat(
    [
      ...common,
      '-G',
      run.groupId,
      '-e',
      '-f',
      '%k=%s\\n',
      '-X',
      'auto.offset.reset=earliest',
      '-X',
      'auto.commit.interval.ms=100',
      '-X',
      'heartbeat.interval.ms=100',
      '-X',
      'fetch.wait.max.ms=200',
      run.topic,
    ],
    '',
  );
  const expected = CODECS.length * MESSAGES_PER_BATCH;
  const got = consumed.split('\n').filter((l) => l.length > 0).length;
  if (got !== expected) throw new ClientDriverError(`kcat consumer got ${got}/${expected} messages`);
}
