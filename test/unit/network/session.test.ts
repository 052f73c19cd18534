import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Logger } from '../../../src/common/logger.js';
import type { Session } from '../../../src/common/session.js';
import { testListenerOptions } from '../../helpers/listener-options.js';
import { Listener } from '../../../src/network/listener.js';
import { encodeRequest } from '@sluice/protocol/envelope.js';
import { ApiVersionsRequest } from '@sluice/protocol/messages/index.js';
import { WireClient } from '../../helpers/wire-client.js';
import { waitFor, when } from '../../helpers/wait-for.js';

test("every request of a connection carries the connection's session: listener, security protocol, anonymous principal, client address", async () => {
  const seen: Session[] = [];
  const listener = new Listener(
    {
      dispatch: async (_header, _body, session) => {
        seen.push(session);
        return null;
      },
    },
    testListenerOptions(),
    new Logger('test'),
  );
  const { host, port } = await listener.listen('127.0.0.1', 0);
  const clients = [await WireClient.connect(host, port), await WireClient.connect(host, port)];
  try {
    const request = (id: number): Buffer => encodeRequest(18, 3, id, 'session-test', (w) => ApiVersionsRequest.write(w, {}, 3));
    clients[0]!.send(Buffer.concat([request(1), request(2)]));
    clients[1]!.send(request(3));
    await waitFor('three requests dispatched', 5000, () => when(seen.length >= 3), 10);
    assert.equal(seen.length, 3);
    const local = clients.map((c) => `${c.socket.localAddress}:${c.socket.localPort}`);
    const addresses = seen.map((s) => s.clientAddress).sort();
    assert.deepEqual(addresses, [local[0], local[0], local[1]].sort());
    for (const s of seen) {
      assert.equal(s.listenerName, 'PLAINTEXT');
      assert.equal(s.securityProtocol, 'PLAINTEXT');
      assert.equal(s.principal, 'User:ANONYMOUS');
    }
  } finally {
    for (const c of clients) c.close();
    await listener.close();
  }
});

test('a closed connection tells the dispatcher its session, once', async () => {
  const served: Session[] = [];
  const closed: Session[] = [];
  const listener = new Listener(
    {
      dispatch: async (_header, _body, session) => {
        served.push(session);
        return null;
      },
      connectionClosed: (session) => closed.push(session),
    },
    testListenerOptions(),
    new Logger('test'),
  );
  const { host, port } = await listener.listen('127.0.0.1', 0);
  const client = await WireClient.connect(host, port);
  try {
    client.send(encodeRequest(18, 3, 1, 'session-test', (w) => ApiVersionsRequest.write(w, {}, 3)));
    await waitFor('the request dispatched', 5000, () => when(served.length >= 1), 10);
    assert.equal(closed.length, 0);
    client.close();
    await waitFor('the session closed', 5000, () => when(closed.length >= 1), 10);
    assert.equal(closed.length, 1);
    assert.equal(closed[0], served[0], "the connection's own session");
  } finally {
    await listener.close();
  }
});
