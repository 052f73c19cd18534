// Drives the Java client (kafka-clients from the Kafka version under test) one scenario per JVM,
// so each scenario's connections carry their own label.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { ClientDriverError, type ClientRun } from './kafkajs-client.js';

const SCENARIOS = [
  'admin',
  'produce-none',
  'produce-gzip',
  'produce-snappy',
  'produce-lz4',
  'produce-zstd',
  'consume',
  'consume-consumer-protocol',
  'group-admin',
] as const;

export interface JavaRun extends ClientRun {
  classpath: string;
  repoRoot: string;
}

function runJava(run: JavaRun, scenario: string): Promise<void> {
  const source = join(run.repoRoot, 'tools', 'golden', 'clients', 'JavaClientSession.java');
  const log4j = `-Dlog4j2.configurationFile=${join(run.repoRoot, 'tools', 'golden', 'log4j2-quiet.properties')}`;
  const args = ['-Xmx256m', log4j, '-cp', run.classpath, source, run.bootstrap, run.topic, run.groupId, scenario];
  return new Promise((resolve, reject) => {
    const child = spawn(process.env['JAVA'] ?? 'java', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const timer = setTimeout(() => child.kill('SIGTERM'), 90_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new ClientDriverError(`Java client scenario ${scenario} exited ${code ?? signal}: ${output.trim()}`));
    });
  });
}

export async function driveJava(run: JavaRun): Promise<void> {
  for (const scenario of SCENARIOS) {
    run.scenario(scenario);
    await runJava(run, scenario);
  }
}
