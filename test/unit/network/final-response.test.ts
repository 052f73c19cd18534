import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Logger } from '../../../src/common/logger.js';
import { testListenerOptions } from '../../helpers/listener-options.js';
import { Listener } from '../../../src/network/listener.js';
import { encodeRequest, encodeResponse } from '@sluice/protocol/envelope.js';
import { ApiVersionsRequest } from '@sluice/protocol/messages/index.js';
import { WireClient } from '../../helpers/wire-client.js';
import { waitFor, when } from '../../helpers/wait-for.js';

test('a FinalResponse is held back its delay, sent, and the connection closed; nothing sent after it is dispatched', async () => {
  const dispatched: number[] = [];
  const delayMs = 300;
  const listener = new Listener(
    {
      dispatch: async (header) => {
        dispatched.push(header.correlationId);
        return { finalFrame: encodeResponse(18, 0, header.correlationId, (w) => w.int16(58)), delayMs };
      },
    },
    testListenerOptions({ listenerName: 'SASL_PLAINTEXT', securityProtocol: 'SASL_PLAINTEXT' }),
    new Logger('test'),
  );
  const { host, port } = await listener.listen('127.0.0.1', 0);
  const client = await WireClient.connect(host, port);
  try {
    const request = (id: number): Buffer => encodeRequest(18, 0, id, 'final-test', (w) => ApiVersionsRequest.write(w, {}, 0));
    const sent = Date.now();
    client.send(request(7));
    await waitFor('the first request dispatched', 5000, () => when(dispatched.length === 1), 5);
    client.send(request(8));
    const frame = await client.readFrame(5000);
    assert.ok(Date.now() - sent >= delayMs - 20, `answered after ${Date.now() - sent} ms`);
    assert.equal(frame.readInt32BE(0), 7);
    assert.equal(await client.closedWithin(2000), true);
    assert.deepEqual(dispatched, [7]);
  } finally {
    client.close();
    await listener.close();
  }
});
