/**
 * The ZooKeeper-era inter-broker codecs (LeaderAndIsr, StopReplica, UpdateMetadata,
 * ControlledShutdown, generated from Kafka 3.9's definitions) against Kafka 3.9's own message
 * classes: for every version of each request and response, values drawn from the schema are
 * written by Sluice and read by Kafka (test/compat/ZookeeperEraMessages.java), which must see
 * the fields Sluice decodes and write back the very same bytes. Kafka 4.4, the pinned release,
 * has no classes for these APIs any more, so this is the only oracle there is.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { API_MESSAGES } from '@sluice/protocol/messages/index.js';
import type { MessageCodec } from '@sluice/protocol/primitives/codec-support.js';
import { Reader } from '@sluice/protocol/primitives/reader.js';
import { Writer } from '@sluice/protocol/primitives/writer.js';
import { ZOOKEEPER_ERA_API_KEYS } from '../../tools/codegen/kafka-definitions.js';
import { kafkaLibsDir, repoRoot, zookeeperEraClientsJar, ZOOKEEPER_ERA_VERSION } from '../../tools/kafka/kafka-release.js';
import { assertSameAsKafka, parseKafkaJson, type KafkaJson } from '../helpers/kafka-json.js';
import { javaSkip } from '../helpers/requirements.js';
import { isFlexible, structArbitrary, versionsOf } from '../helpers/schema-arbitrary.js';

type AnyCodec = MessageCodec<Record<string, unknown>, Record<string, unknown>>;

const SAMPLES_PER_VERSION = 12;
const SEED = 20260;

interface Sample {
  readonly codec: AnyCodec;
  readonly version: number;
  readonly bytes: Buffer;
}

function encode(codec: AnyCodec, value: Record<string, unknown>, version: number): Buffer {
  const w = new Writer(64);
  codec.write(w, value, version);
  return Buffer.from(w.finish());
}

function samples(): Sample[] {
  const codecs = API_MESSAGES.filter((a) => ZOOKEEPER_ERA_API_KEYS.includes(a.apiKey)).flatMap((a) => [
    a.request,
    a.response,
  ]) as unknown as AnyCodec[];
  assert.equal(codecs.length, 2 * ZOOKEEPER_ERA_API_KEYS.length, 'a ZooKeeper-era API has no generated codecs');
  return codecs.flatMap((codec) =>
    versionsOf(codec.validVersions.lo, codec.validVersions.hi).flatMap((version) =>
      fc
        .sample(structArbitrary(codec.schema, version, isFlexible(codec, version)), { numRuns: SAMPLES_PER_VERSION, seed: SEED + version })
        .map((value) => ({ codec, version, bytes: encode(codec, value, version) })),
    ),
  );
}

/** The 3.9 kafka-clients jar alone, and the JSON library its converters need from the pinned release's libs. */
function classpath(): string {
  const jackson = readdirSync(kafkaLibsDir()).filter((f) => /^jackson-(core|databind|annotations)-[\d.]+\.jar$/.test(f));
  return [zookeeperEraClientsJar(), ...jackson.map((f) => join(kafkaLibsDir(), f))].join(':');
}

function kafkaRoundTrips(input: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const source = join(repoRoot(), 'test', 'compat', 'ZookeeperEraMessages.java');
    const child = execFile(
      process.env['JAVA'] ?? 'java',
      ['-cp', classpath(), source],
      { maxBuffer: 64 * 1024 * 1024, timeout: 90_000 },
      (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout.trimEnd().split('\n'))),
    );
    child.stdin!.end(input);
  });
}

test(
  `Kafka ${ZOOKEEPER_ERA_VERSION} reads every version of the ZooKeeper-era messages as Sluice writes them, and writes the same bytes`,
  { skip: javaSkip(), timeout: 120_000 },
  async () => {
    const all = samples();
    const lines = await kafkaRoundTrips(all.map((s) => `${s.codec.name} ${s.version} ${s.bytes.toString('hex')}\n`).join(''));
    assert.equal(lines.length, all.length);
    all.forEach((s, i) => {
      const where = `${s.codec.name} v${s.version} sample ${i}`;
      const answer = parseKafkaJson(lines[i]!) as { [key: string]: KafkaJson };
      assert.equal(answer['error'], undefined, `${where}: Kafka could not read ${s.bytes.toString('hex')}`);
      assert.equal(answer['hex'], s.bytes.toString('hex'), `${where}: Kafka writes what it read differently`);
      assertSameAsKafka(s.codec.read(new Reader(s.bytes), s.version), answer['json']!, where);
    });
  },
);
