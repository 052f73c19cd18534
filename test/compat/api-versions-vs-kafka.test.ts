/**
 * Sluice and Apache Kafka (the pinned release, one KRaft node started here) asked the same
 * questions over raw sockets: which versions of each API they advertise, and what becomes of a
 * request at a version that is advertised but not served (Produce v0-v2, KAFKA-18659).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeRequest, decodeResponseHeader } from '@sluice/protocol/envelope.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { ApiVersionsRequest, ApiVersionsResponse } from '@sluice/protocol/messages/index.js';
import { Reader } from '@sluice/protocol/primitives/reader.js';
import { KAFKA_VERSION } from '../../tools/kafka/kafka-release.js';
import { javaSkip } from '../helpers/requirements.js';
import { sideBySide } from '../helpers/side-by-side.js';
import { requestFate, WireClient } from '../helpers/wire-client.js';

const PRODUCE_KEY = 0;
const API_VERSIONS_VERSION = 3;

/**
 * APIs both serve whose ranges still differ, each with the reason; the list shrinks as Sluice
 * catches up, and a difference not listed here fails the test.
 */
const KNOWN_DIFFERENCES: Readonly<Record<number, string>> = {};

async function connectTo(bootstrap: string): Promise<WireClient> {
  const colon = bootstrap.lastIndexOf(':');
  return WireClient.connect(bootstrap.slice(0, colon), Number(bootstrap.slice(colon + 1)));
}

async function advertised(bootstrap: string): Promise<Map<number, string>> {
  const client = await connectTo(bootstrap);
  try {
    client.send(
      encodeRequest(18, API_VERSIONS_VERSION, 1, 'compat', (w) =>
        ApiVersionsRequest.write(w, { clientSoftwareName: 'sluice-compat', clientSoftwareVersion: '1' }, API_VERSIONS_VERSION),
      ),
    );
    const frame = await client.readFrame(10_000);
    const { bodyOffset } = decodeResponseHeader(frame, 18, API_VERSIONS_VERSION);
    const response = ApiVersionsResponse.read(new Reader(frame, bodyOffset), API_VERSIONS_VERSION);
    assert.equal(response.errorCode, ErrorCode.NONE);
    return new Map(response.apiKeys.map((k) => [k.apiKey, `${k.minVersion}-${k.maxVersion}`]));
  } finally {
    client.close();
  }
}

/**
 * A Produce request at v0-v2, which the generated codec (v3+) cannot write: acks, timeout, one
 * topic with one partition and an empty message set. The layout is the same in all three.
 */
function oldProduceFrame(version: number): Buffer {
  return encodeRequest(PRODUCE_KEY, version, 7, 'compat', (w) => {
    w.int16(1);
    w.int32(5000);
    w.arrayLength(1);
    w.string('compat-old-produce');
    w.arrayLength(1);
    w.int32(0);
    w.bytes(Buffer.alloc(0));
  });
}

describe(`ApiVersions and unserved versions, Sluice against Apache Kafka ${KAFKA_VERSION}`, { skip: javaSkip() }, () => {
  const brokers = sideBySide();

  test('every API both serve is advertised with the same version range', async () => {
    const [ours, theirs] = await Promise.all([advertised(brokers().sluice.bootstrap), advertised(brokers().kafka.bootstrap)]);
    assert.equal(ours.get(PRODUCE_KEY), theirs.get(PRODUCE_KEY), 'Produce, v0 included for librdkafka before 2.11');
    const differences: string[] = [];
    for (const [apiKey, range] of ours) {
      const kafkaRange = theirs.get(apiKey);
      assert.ok(kafkaRange !== undefined, `Sluice advertises API ${apiKey}, which Kafka does not`);
      if (range !== kafkaRange && KNOWN_DIFFERENCES[apiKey] === undefined)
        differences.push(`API ${apiKey}: Sluice ${range}, Kafka ${kafkaRange}`);
      if (range === kafkaRange && KNOWN_DIFFERENCES[apiKey] !== undefined)
        differences.push(`API ${apiKey} now matches: drop it from KNOWN_DIFFERENCES`);
    }
    assert.deepEqual(differences, []);
  });

  for (const version of [0, 1, 2]) {
    test(`Produce v${version} is advertised but refused by closing the connection, by both`, async () => {
      const frame = oldProduceFrame(version);
      const [ours, theirs] = await Promise.all([
        requestFate(brokers().sluice.bootstrap, frame),
        requestFate(brokers().kafka.bootstrap, frame),
      ]);
      assert.equal(theirs, 'closed');
      assert.equal(ours, theirs);
      assert.ok((await advertised(brokers().sluice.bootstrap)).size > 0, 'Sluice serves the next connection');
    });
  }
});
