/**
 * The sweep's side of a driver process, against small stand-in drivers (node -e scripts): the
 * hello, a run answered with stats and a result, and the ways a driver can fail, each reported
 * with the driver's stderr; and what `--client` says when a client is missing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chooseClient, ClientUnavailableError, resolveClient, type DriverCommand } from '../src/client-drivers.js';
import { DriverFailedError, DriverProcess } from '../src/driver-process.js';

const SETUP = { bootstrap: 'h:9092', topic: 't', producer: new Map([['linger.ms', '5']]), consumer: new Map<string, string>() };

function standIn(script: string): DriverCommand {
  return { client: 'sluice', command: process.execPath, args: ['-e', script] };
}

/** Answers each run line with one stats line and a result echoing what it was told. */
const ECHO = `
const lines = [];
console.log(JSON.stringify({ type: 'hello', client: 'stand-in 1.0' }));
require('readline').createInterface({ input: process.stdin }).on('line', (line) => {
  lines.push(line);
  if (!line.startsWith('run ')) return;
  const [id, seconds, rate, size] = line.split(' ').slice(1).map(Number);
  console.log(JSON.stringify({ type: 'stats', id, json: { lines } }));
  console.log(JSON.stringify({ type: 'result', id, sent: rate * seconds, acknowledged: rate * seconds, failed: 0, firstError: null, elapsedSeconds: seconds,
    sendAckUs: [[size, 1]], consumed: 0, endToEndUs: null, metrics: {} }));
});`;

test('a driver says hello, gets the setup, and answers each run with its stats and result', async () => {
  const { driver, client } = await DriverProcess.start(standIn(ECHO), SETUP);
  try {
    assert.equal(client, 'stand-in 1.0');
    const first = await driver.run({ id: 1, seconds: 2, targetRate: 100, recordSize: 64, endToEnd: false });
    assert.deepEqual(first.stats, [{ lines: ['bootstrap h:9092', 'topic t', 'producer linger.ms=5', 'run 1 2 100 64 0'] }]);
    assert.deepEqual([first.result.id, first.result.sent, first.result.sendAckUs], [1, 200, [[64, 1]]]);
    const second = await driver.run({ id: 2, seconds: 1, targetRate: 50, recordSize: 8, endToEnd: true });
    assert.equal(second.result.sent, 50);
  } finally {
    await driver.close();
  }
});

test('a driver that fails is reported with its own words and the end of its stderr', async () => {
  const cases: Array<[string, RegExp]> = [
    [`console.error('no librdkafka here'); process.exit(3)`, /the sluice driver exited \(code 3\); its stderr ends:\nno librdkafka here/],
    [`console.log('[INFO] hello from a logger')`, /not JSON: \[INFO\] hello from a logger/],
    [`console.log(JSON.stringify({ type: 'error', message: 'batch.size: not a number' }))`, /the sluice driver said error before hello/],
  ];
  for (const [script, message] of cases) {
    await assert.rejects(
      DriverProcess.start(standIn(script), SETUP),
      (e: unknown) => e instanceof DriverFailedError && message.test(e.message),
      script,
    );
  }
  const failing = `console.log(JSON.stringify({ type: 'hello', client: 'x' }));
    require('readline').createInterface({ input: process.stdin }).on('line', (l) => {
      if (l.startsWith('run')) { console.error('ConfigException: linger.ms'); console.log(JSON.stringify({ type: 'error', message: 'bad config' })); }
    });`;
  const { driver } = await DriverProcess.start(standIn(failing), SETUP);
  try {
    await assert.rejects(
      driver.run({ id: 1, seconds: 0.1, targetRate: null, recordSize: 8, endToEnd: false }),
      /the sluice driver bad config; its stderr ends:\nConfigException: linger\.ms/,
    );
  } finally {
    await driver.close();
  }
});

test('--client java and librdkafka say what is missing', () => {
  const cacheDir = mkdtempSync(join(tmpdir(), 'sluice-tune-cache-'));
  const saved = { JAVA: process.env['JAVA'], CC: process.env['CC'] };
  const lookup = { kafkaClients: null, cacheDir, note: () => undefined };
  try {
    process.env['JAVA'] = '/nonexistent/java';
    assert.throws(
      () => resolveClient('java', lookup),
      (e: unknown) =>
        e instanceof ClientUnavailableError && /^--client java: no Java runtime \(java\) on the PATH; install one/.test(e.message),
    );
    process.env['CC'] = '/nonexistent/cc';
    assert.throws(
      () => resolveClient('librdkafka', lookup),
      /: --client librdkafka: no C compiler \(\/nonexistent\/cc\) to build the librdkafka driver \(apt-get install build-essential librdkafka-dev\)$/,
    );
    assert.equal(resolveClient('sluice', lookup).command, process.execPath, 'the sluice client is always there');
  } finally {
    for (const [k, v] of Object.entries(saved))
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    rmSync(cacheDir, { recursive: true, force: true });
  }
});

test('without --client the first present client is taken and the skipped ones say why; jars are not fetched for a default', () => {
  const cacheDir = mkdtempSync(join(tmpdir(), 'sluice-tune-cache-'));
  const saved = { JAVA: process.env['JAVA'], CC: process.env['CC'] };
  try {
    process.env['JAVA'] = '/nonexistent/java';
    process.env['CC'] = '/nonexistent/cc';
    const { driver, skipped } = chooseClient(null, { kafkaClients: null, cacheDir, note: () => undefined });
    assert.equal(driver.client, 'sluice');
    assert.equal(skipped.length, 2);
    assert.match(skipped[0]!, /^--client java: no Java runtime/);
    assert.match(skipped[1]!, /^--client librdkafka: no C compiler/);
    assert.throws(
      () => chooseClient('java', { kafkaClients: null, cacheDir, note: () => undefined }),
      ClientUnavailableError,
      'a named client that is missing is an error',
    );
  } finally {
    for (const [k, v] of Object.entries(saved))
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    rmSync(cacheDir, { recursive: true, force: true });
  }
});
