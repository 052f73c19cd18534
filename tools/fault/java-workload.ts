/**
 * The Java kafka-clients workload: `JavaClients.java faultClient` in its own JVM, an idempotent
 * acks=all producer and a group consumer that print every send, outcome, record and commit as a
 * JSON line (read here into the recorder); SIGTERM stops it.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { javaClientArgs } from '../../test/helpers/interop.js';
import type { Recorder } from './recorder.js';
import type { Workload, WorkloadSettings } from './workload.js';

const CLIENT = 'java';
const STOP_GRACE_MS = 90_000;

interface Line {
  readonly type: string;
  readonly value?: string;
  readonly partition?: number;
  readonly offset?: number;
  readonly atMs?: number;
  readonly group?: string;
  readonly error?: string;
}

export function startJavaWorkload(
  settings: WorkloadSettings,
  recorder: Recorder,
  writer: string,
  group: string,
  onProblem: (line: string) => void,
): Workload {
  const child = spawn(process.env['JAVA'] ?? 'java', javaClientArgs('faultClient', settings.bootstrap), {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const log = createWriteStream(settings.logFile);
  child.stderr.pipe(log);
  child.stdin.end(
    JSON.stringify({ topic: settings.topic, partitions: settings.partitions, writer, group, intervalMs: settings.intervalMs }),
  );
  // 'close', not 'exit': the last lines are read only once stdout is drained.
  const closed = once(child, 'close');
  let stopping = false;
  child.once('exit', (code, signal) => {
    if (!stopping) onProblem(`the Java workload exited on its own (${code ?? signal}); see ${settings.logFile}`);
  });
  createInterface({ input: child.stdout }).on('line', (text) => {
    if (text.trim() === '') return;
    const l = JSON.parse(text) as Line;
    switch (l.type) {
      case 'send':
        recorder.sent(CLIENT, l.value!, l.partition!, l.atMs!);
        break;
      case 'acked':
        recorder.done(l.value!, 'acked', l.atMs!, { offset: l.offset! });
        break;
      case 'failed':
      case 'unknown':
        recorder.done(l.value!, l.type, l.atMs!, { error: l.error! });
        break;
      case 'consumed':
        recorder.consumed.push({ group, partition: l.partition!, offset: l.offset!, value: l.value! });
        break;
      case 'commit':
        recorder.commits.push({ group, partition: l.partition!, offset: l.offset!, atMs: l.atMs! });
        break;
      case 'fetchedOffset':
        recorder.fetchedOffsets.push({ group, partition: l.partition!, offset: l.offset! });
        break;
      case 'commitFailed':
        log.write(`commit failed: ${l.error}\n`);
        break;
      case 'producerError':
      case 'consumerError':
        onProblem(`java ${l.type}: ${l.error}`);
        break;
      default:
        log.write(`${text}\n`);
    }
  });
  return {
    client: CLIENT,
    writer,
    async stop() {
      stopping = true;
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => {
          onProblem(`the Java workload did not stop within ${STOP_GRACE_MS} ms of SIGTERM; killed`);
          child.kill('SIGKILL');
        }, STOP_GRACE_MS);
        await closed;
        clearTimeout(timer);
      }
      log.end();
    },
  };
}
