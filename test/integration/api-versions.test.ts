import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Kafka, logLevel } from 'kafkajs';
import { decodeResponseHeader, encodeRequest } from '@sluice/protocol/envelope.js';
import { ApiVersionsRequest, ApiVersionsResponse, type ApiVersionsResponseData } from '@sluice/protocol/messages/index.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { Reader } from '@sluice/protocol/primitives/reader.js';
import { Writer } from '@sluice/protocol/primitives/writer.js';
import { startBrokerProcess, type BrokerProcess } from '../helpers/broker-process.js';
import { WireClient } from '../helpers/wire-client.js';
import { HANDLERS } from '../../src/handlers/index.js';
import { kcatSkip } from '../helpers/requirements.js';

const run = promisify(execFile);

function apiVersionsFrame(version: number, correlationId: number, software = { name: 'sluice-test', version: '1.0' }): Buffer {
  return encodeRequest(18, version, correlationId, 'wire-test', (w) =>
    ApiVersionsRequest.write(w, { clientSoftwareName: software.name, clientSoftwareVersion: software.version }, Math.min(version, 5)),
  );
}

function readApiVersions(frame: Buffer, version: number): { correlationId: number; body: ApiVersionsResponseData } {
  const { correlationId, bodyOffset } = decodeResponseHeader(frame, 18, version);
  const r = new Reader(frame, bodyOffset);
  const body = ApiVersionsResponse.read(r, version);
  assert.equal(r.remaining(), 0, 'response has trailing bytes');
  return { correlationId, body };
}

describe('ApiVersions against a broker process', () => {
  let broker: BrokerProcess;
  before(async () => {
    broker = await startBrokerProcess();
  });
  after(async () => {
    assert.equal(await broker.stop(), 0, 'the broker exits cleanly on SIGTERM');
  });

  test('every supported version answers with the handler-derived ranges', async () => {
    const client = await WireClient.connect(broker.host, broker.port);
    try {
      for (let v = 0; v <= ApiVersionsRequest.validVersions.hi; v++) {
        client.send(apiVersionsFrame(v, 100 + v));
        const { correlationId, body } = readApiVersions(await client.readFrame(), v);
        assert.equal(correlationId, 100 + v);
        assert.equal(body.errorCode, ErrorCode.NONE);
        const self = body.apiKeys.find((k) => k.apiKey === 18);
        assert.deepEqual(self && { min: self.minVersion, max: self.maxVersion }, { min: 0, max: ApiVersionsRequest.validVersions.hi });
        assert.deepEqual(
          body.apiKeys.map((k) => k.apiKey),
          HANDLERS.map((h) => h.apiKey).sort((a, b) => a - b),
          'exactly the registered handlers are advertised',
        );
      }
    } finally {
      client.close();
    }
  });

  test('an unknown ApiVersions version gets a v0 response with UNSUPPORTED_VERSION and the ranges (KIP-511)', async () => {
    const client = await WireClient.connect(broker.host, broker.port);
    try {
      // A newer client sends its newest version with a flexible (v2) request header.
      const w = new Writer();
      w.compactString('future-client');
      w.compactString('9.9');
      w.unsignedVarint(0);
      const frame = encodeRequest(18, 99, 7, 'future', (out) => out.raw(w.finish()));
      client.send(frame);
      const { correlationId, body } = readApiVersions(await client.readFrame(), 0);
      assert.equal(correlationId, 7);
      assert.equal(body.errorCode, ErrorCode.UNSUPPORTED_VERSION);
      assert.ok(body.apiKeys.some((k) => k.apiKey === 18 && k.maxVersion === ApiVersionsRequest.validVersions.hi));
    } finally {
      client.close();
    }
  });

  test('v3+ with an invalid client software name answers INVALID_REQUEST', async () => {
    const client = await WireClient.connect(broker.host, broker.port);
    try {
      client.send(apiVersionsFrame(3, 9, { name: '-bad name-', version: '1' }));
      const { body } = readApiVersions(await client.readFrame(), 3);
      assert.equal(body.errorCode, ErrorCode.INVALID_REQUEST);
    } finally {
      client.close();
    }
  });

  test('responses come back in request order for pipelined requests', async () => {
    const client = await WireClient.connect(broker.host, broker.port);
    try {
      client.send(Buffer.concat([1, 2, 3, 4, 5].map((id) => apiVersionsFrame(id % 4, id))));
      for (const id of [1, 2, 3, 4, 5]) assert.equal(readApiVersions(await client.readFrame(), id % 4).correlationId, id);
    } finally {
      client.close();
    }
  });

  test('bad input closes only that connection and the broker keeps serving', async () => {
    const cases: Array<[string, Buffer]> = [
      ['a 2 GiB size prefix', Buffer.from([0x7f, 0xff, 0xff, 0xff, 0, 18, 0, 0])],
      ['a negative size prefix', Buffer.from([0xff, 0xff, 0xff, 0xfe])],
      ['a frame too short for a header', Buffer.from([0, 0, 0, 3, 0, 18, 0])],
      ['an API the broker does not serve', encodeRequest(9999, 0, 1, 'x', () => undefined)],
      ['a truncated ApiVersions v3 body', encodeRequest(18, 3, 1, 'x', (w) => w.unsignedVarint(50))],
    ];
    for (const [name, bytes] of cases) {
      const bad = await WireClient.connect(broker.host, broker.port);
      bad.send(bytes);
      assert.ok(await bad.closedWithin(3000), `${name}: connection was not closed`);
      bad.close();
    }
    const good = await WireClient.connect(broker.host, broker.port);
    try {
      good.send(apiVersionsFrame(2, 42));
      assert.equal(readApiVersions(await good.readFrame(), 2).correlationId, 42);
    } finally {
      good.close();
    }
    assert.equal(broker.child.exitCode, null, 'the broker is still running');
  });

  test('KafkaJS negotiates API versions with the broker', async () => {
    const kafka = new Kafka({ clientId: 'sluice-test', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING, retry: { retries: 0 } });
    const admin = kafka.admin();
    try {
      await admin.connect();
    } finally {
      await admin.disconnect();
    }
    assert.doesNotMatch(broker.stderr(), /request failed/);
  });

  test('librdkafka (kcat) negotiates versions and lists the cluster', { skip: kcatSkip() }, async () => {
    const result = await run('kcat', ['-b', broker.bootstrap, '-L', '-m', '5', '-d', 'protocol'], { timeout: 15_000 });
    assert.match(result.stderr, /Received ApiVersionResponse \(v3/);
    assert.match(result.stdout, /1 brokers:\s+broker 0 at 127\.0\.0\.1:\d+ \(controller\)/);
  });
});
