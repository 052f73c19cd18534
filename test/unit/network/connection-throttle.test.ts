import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Logger } from '../../../src/common/logger.js';
import { testListenerOptions } from '../../helpers/listener-options.js';
import { Listener } from '../../../src/network/listener.js';
import { encodeRequest, encodeResponse } from '@sluice/protocol/envelope.js';
import { ApiVersionsRequest, ApiVersionsResponse } from '@sluice/protocol/messages/index.js';
import { WireClient } from '../../helpers/wire-client.js';

const THROTTLE_MS = 400;

test('a throttled response goes out at once, then the connection reads nothing more until the throttle time has passed (KIP-219)', async () => {
  const dispatched: number[] = [];
  const listener = new Listener(
    {
      dispatch: async (header, _body, _session, throttle) => {
        dispatched.push(Date.now());
        if (header.correlationId === 1) throttle?.(THROTTLE_MS);
        return encodeResponse(18, 0, header.correlationId, (w) => ApiVersionsResponse.write(w, { errorCode: 0, apiKeys: [] }, 0));
      },
    },
    testListenerOptions(),
    new Logger('test'),
  );
  const { host, port } = await listener.listen('127.0.0.1', 0);
  const client = await WireClient.connect(host, port);
  try {
    const request = (id: number): Buffer => encodeRequest(18, 0, id, 'throttle-test', (w) => ApiVersionsRequest.write(w, {}, 0));
    const sent = Date.now();
    client.send(request(1));
    await client.readFrame();
    assert.ok(Date.now() - sent < THROTTLE_MS / 2, 'the throttled response is not delayed');
    client.send(request(2));
    await client.readFrame(5000);
    assert.equal(dispatched.length, 2);
    const muted = dispatched[1]! - dispatched[0]!;
    assert.ok(muted >= THROTTLE_MS - 20, `the next request was read after ${muted} ms`);
    // Unthrottled, the next request is read at once.
    const again = Date.now();
    client.send(request(3));
    await client.readFrame();
    assert.ok(dispatched[2]! - again < THROTTLE_MS / 2);
  } finally {
    client.close();
    await listener.close();
  }
});
