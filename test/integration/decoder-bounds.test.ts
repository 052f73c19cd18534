// Requests at and just over Kafka 4.4's decoder caps, sent over real sockets to a spawned broker:
// at a cap the request is answered; one over, the connection is closed without an answer (what
// Kafka 4.4 does, see test/compat/decoder-bounds-vs-kafka.test.ts), and the broker goes on
// serving the next connection.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeRequest } from '@sluice/protocol/envelope.js';
import { ApiVersionsRequest } from '@sluice/protocol/messages/index.js';
import { startBrokerProcess, type BrokerProcess } from '../helpers/broker-process.js';
import { BOUND_FRAMES } from '../helpers/bound-frames.js';
import { requestFate, WireClient } from '../helpers/wire-client.js';

const apiVersions = encodeRequest(18, 3, 2, 'bounds', (w) =>
  ApiVersionsRequest.write(w, { clientSoftwareName: 'bounds', clientSoftwareVersion: '1' }, 3),
);

describe('decoder caps over a real socket', () => {
  let broker: BrokerProcess;
  before(async () => {
    broker = await startBrokerProcess();
  });
  after(async () => {
    await broker?.stop();
  });

  for (const c of BOUND_FRAMES) {
    test(`${c.name}: ${c.overLimit ? 'connection closed, next connection served' : 'answered'}`, async () => {
      assert.equal(await requestFate(broker.bootstrap, c.frame()), c.overLimit ? 'closed' : 'answered');
      assert.equal(await requestFate(broker.bootstrap, apiVersions), 'answered', 'the next connection is served');
    });
  }

  test('a connection that was served is closed by its over-cap request, answering what came before', async () => {
    const client = await WireClient.connect(broker.host, broker.port);
    try {
      client.send(apiVersions);
      client.send(BOUND_FRAMES.find((c) => c.overLimit)!.frame());
      const first = await client.readFrame();
      assert.equal(first.readInt32BE(0), 2, 'the ApiVersions request before it is answered');
      assert.equal(await client.closedWithin(5000), true);
    } finally {
      client.close();
    }
  });

  test('the broker logs each refusal as the cap it broke', () => {
    const log = broker.stderr();
    assert.match(log, /closing connection after bad input.*1000001 array elements claimed, more than the 1000000/);
    assert.match(log, /closing connection after bad input.*10001 tagged fields claimed, more than the 10000/);
    assert.match(log, /closing connection after bad input.*32768 string bytes claimed, more than the 32767/);
    assert.equal(broker.child.exitCode, null, 'broker still running');
  });
});
