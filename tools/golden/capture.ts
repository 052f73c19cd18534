// Captures golden Kafka frames: starts Apache Kafka advertising the recording proxy's port, drives
// real clients through the proxy, and writes the selected frames and manifest under test/golden/.
// Usage: node dist/tools/golden/capture.js [--clients kafkajs,kcat,java] [--kafka-version <version>]
//          [--kafka-port 19192] [--proxy-port 19194]
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startKafka } from '../kafka/kafka-process.js';
import { KAFKA_VERSION, repoRoot } from '../kafka/kafka-release.js';
import { driveJava } from './clients/java-client.js';
import { driveKafkaJs, type ClientRun } from './clients/kafkajs-client.js';
import { driveKcat } from './clients/kcat-client.js';
import { selectFixtures } from './frame-selection.js';
import { writeFixtures, type ManifestEntry } from './fixture-writer.js';
import { RecordingProxy } from './recording-proxy.js';

export class CaptureError extends Error {
  override name = 'CaptureError';
}

/** APIs every client's fixtures must contain, in both directions. */
const REQUIRED_APIS = ['ApiVersions', 'Metadata', 'Produce', 'Fetch', 'FindCoordinator', 'JoinGroup', 'SyncGroup', 'OffsetCommit'];
const CLIENTS = ['kafkajs', 'kcat', 'java'] as const;
type ClientName = (typeof CLIENTS)[number];

function isClientName(name: string): name is ClientName {
  return (CLIENTS as readonly string[]).includes(name);
}

function missingApis(frames: readonly ManifestEntry[], client: string): string[] {
  const have = (api: string, direction: string): boolean =>
    frames.some((f) => f.client === client && f.apiName === api && f.direction === direction);
  return REQUIRED_APIS.filter((api) => !have(api, 'request') || !have(api, 'response'));
}

const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: CLIENTS.join(',') },
    'kafka-version': { type: 'string', default: KAFKA_VERSION },
    'kafka-port': { type: 'string', default: '19192' },
    'proxy-port': { type: 'string', default: '19194' },
  },
});

const root = repoRoot();
const clients = values.clients.split(',').map((name) => {
  if (!isClientName(name)) throw new CaptureError(`unknown client ${name}; known: ${CLIENTS.join(', ')}`);
  return name;
});
const kafkaPort = Number(values['kafka-port']);
const proxyPort = Number(values['proxy-port']);
const logDir = join(root, '.cache', 'golden', 'kafka');
rmSync(logDir, { recursive: true, force: true });

// The proxy starts first so that a busy port fails before there is a broker to clean up.
const proxy = await RecordingProxy.start(proxyPort, kafkaPort);
const kafka = await startKafka({
  port: kafkaPort,
  advertisedPort: proxyPort,
  controllerPort: kafkaPort + 1,
  logDir,
  version: values['kafka-version'],
}).catch(async (err: unknown) => {
  await proxy.close();
  throw err;
});
try {
  for (const client of clients) {
    const run: ClientRun = {
      bootstrap: `127.0.0.1:${proxyPort}`,
      topic: `golden-${client}`,
      groupId: `golden-${client}-group`,
      scenario: (scenario) => {
        proxy.label = { client, scenario };
      },
    };
    console.log(`capturing ${client}`);
    if (client === 'kafkajs') await driveKafkaJs(run);
    else if (client === 'kcat') await driveKcat(run);
    else await driveJava({ ...run, classpath: kafka.classpath, repoRoot: root });
  }
  // Late responses (commits on close, LeaveGroup) may still be in flight.
  await new Promise((r) => setTimeout(r, 500));
  const failures = proxy.errors();
  if (failures.length > 0) throw new CaptureError(`proxy could not follow the streams: ${failures.map((e) => e.message).join('; ')}`);

  const selected = selectFixtures(proxy.exchanges());
  const manifest = writeFixtures(join(root, 'test', 'golden'), values['kafka-version'], selected);
  for (const client of clients) {
    const frames = manifest.frames.filter((f) => f.client === client);
    console.log(`${client}: ${frames.length} frames: ${[...new Set(frames.map((f) => `${f.apiName}v${f.apiVersion}`))].join(' ')}`);
    const missing = missingApis(frames, client);
    if (missing.length > 0) throw new CaptureError(`${client}: no request/response pair captured for ${missing.join(', ')}`);
  }
} finally {
  await proxy.close();
  await kafka.stop();
}
