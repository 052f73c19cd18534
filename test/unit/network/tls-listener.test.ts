import { test } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { connect as connectTls, type TLSSocket } from 'node:tls';
import { Logger } from '../../../src/common/logger.js';
import { BrokerMetrics } from '../../../src/common/metrics/broker-metrics.js';
import { RateLimitedLog } from '../../../src/common/rate-limited-log.js';
import type { Session } from '../../../src/common/session.js';
import { serverTls } from '@sluice/protocol/common/tls-config.js';
import { ConnectionLimits } from '../../../src/network/connection-limits.js';
import { Listener, type ListenerOptions } from '../../../src/network/listener.js';
import { encodeRequest } from '@sluice/protocol/envelope.js';
import { ApiVersionsRequest } from '@sluice/protocol/messages/index.js';
import { testTlsFiles } from '../../helpers/tls-files.js';
import { waitFor, when } from '../../helpers/wait-for.js';

const quiet = new Logger('test');

function options(overrides: Partial<ListenerOptions>): ListenerOptions {
  return {
    listenerName: 'SSL',
    securityProtocol: 'SSL',
    maxFrameBytes: 1 << 20,
    maxInFlightRequests: 10,
    idleTimeoutMs: 0,
    metrics: new BrokerMetrics(),
    clientWarnings: new RateLimitedLog(quiet, 100),
    tls: null,
    limits: new ConnectionLimits({ maxConnections: 1000, maxConnectionsPerIp: 1000, maxConnectionsPerIpOverrides: new Map() }),
    ...overrides,
  };
}

function sslSettings(extra: Record<string, string>): Map<string, string> {
  const f = testTlsFiles();
  return new Map(
    Object.entries({
      'ssl.keystore.type': 'PEM',
      'ssl.keystore.location': f.brokerPem,
      'ssl.truststore.type': 'PEM',
      'ssl.truststore.location': f.caCert,
      ...extra,
    }),
  );
}

async function tlsClient(port: number, withCertificate: boolean): Promise<TLSSocket> {
  const f = testTlsFiles();
  const socket = connectTls({
    host: '127.0.0.1',
    port,
    servername: 'localhost',
    ca: readFileSync(f.caCert),
    ...(withCertificate ? { cert: readFileSync(f.clientCert), key: readFileSync(f.clientKey) } : {}),
  });
  await once(socket, 'secureConnect');
  return socket;
}

const apiVersions = (id: number): Buffer => encodeRequest(18, 3, id, 'tls-test', (w) => ApiVersionsRequest.write(w, {}, 3));

async function sessionOf(listener: Listener, seen: Session[], withCertificate: boolean): Promise<Session> {
  const { port } = await listener.listen('127.0.0.1', 0);
  const client = await tlsClient(port, withCertificate);
  try {
    client.write(apiVersions(1));
    await waitFor('the request to be dispatched', 5000, () => when(seen.length > 0), 10);
    assert.equal(seen.length, 1);
    return seen[0]!;
  } finally {
    client.destroy();
    await listener.close();
  }
}

test("a client certificate's principal follows ssl.principal.mapping.rules; without one the client is User:ANONYMOUS", async () => {
  for (const [rules, withCertificate, expected] of [
    ['DEFAULT', true, 'User:CN=client,OU=clients,O=Sluice'],
    ['RULE:^CN=([^,]*),OU=([^,]*),.*$/$1@$2/U,DEFAULT', true, 'User:CLIENT@CLIENTS'],
    ['DEFAULT', false, 'User:ANONYMOUS'],
  ] as const) {
    const seen: Session[] = [];
    const listener = new Listener(
      { dispatch: async (_h, _b, session) => (seen.push(session), null) },
      options({ tls: serverTls(sslSettings({ 'ssl.client.auth': 'requested', 'ssl.principal.mapping.rules': rules })) }),
      quiet,
    );
    const session = await sessionOf(listener, seen, withCertificate);
    assert.equal(session.principal, expected, rules);
    assert.equal(session.securityProtocol, 'SSL');
  }
});

test('a certificate no mapping rule matches closes the connection before any request is served', async () => {
  const seen: Session[] = [];
  const listener = new Listener(
    { dispatch: async (_h, _b, session) => (seen.push(session), null) },
    options({ tls: serverTls(sslSettings({ 'ssl.client.auth': 'required', 'ssl.principal.mapping.rules': 'RULE:^CN=admin,.*$/admin/' })) }),
    quiet,
  );
  const { port } = await listener.listen('127.0.0.1', 0);
  try {
    const client = await tlsClient(port, true).catch(() => null);
    if (client !== null) {
      client.on('error', () => undefined);
      client.write(apiVersions(1));
      await once(client, 'close');
    }
    assert.deepEqual(seen, []);
  } finally {
    await listener.close();
  }
});

test('a client that never completes its handshake is disconnected after the handshake timeout', async () => {
  const warnings: string[] = [];
  const log = new (class extends Logger {
    override warn(message: string, context?: Record<string, unknown>): void {
      warnings.push(`${message} ${JSON.stringify(context)}`);
    }
  })('test');
  const listener = new Listener(
    { dispatch: async () => null },
    options({ tls: serverTls(sslSettings({})), handshakeTimeoutMs: 200, clientWarnings: new RateLimitedLog(log, 10) }),
    quiet,
  );
  const { port } = await listener.listen('127.0.0.1', 0);
  try {
    const stalled = connect({ host: '127.0.0.1', port });
    stalled.on('error', () => undefined);
    const started = Date.now();
    await once(stalled, 'close');
    assert.ok(Date.now() - started < 3000, 'closed by the handshake timeout');
    assert.ok(
      warnings.some((w) => w.startsWith('TLS handshake failed')),
      warnings.join('\n'),
    );
  } finally {
    await listener.close();
  }
});

class CountingLimits extends ConnectionLimits {
  released = 0;
  override release(ip: string): void {
    super.release(ip);
    this.released++;
  }
}

test('max.connections.per.ip: connections over the limit are closed at once, and a closed one frees its slot', async () => {
  const limits = new CountingLimits({ maxConnections: 100, maxConnectionsPerIp: 2, maxConnectionsPerIpOverrides: new Map() });
  const listener = new Listener(
    { dispatch: async () => null },
    options({ listenerName: 'PLAINTEXT', securityProtocol: 'PLAINTEXT', limits }),
    quiet,
  );
  const { port } = await listener.listen('127.0.0.1', 0);
  const open = async (): Promise<Socket> => {
    const s = connect({ host: '127.0.0.1', port });
    s.on('error', () => undefined);
    await once(s, 'connect');
    return s;
  };
  const closedSoon = async (s: Socket): Promise<boolean> => {
    const closed = once(s, 'close').then(() => true);
    return Promise.race([closed, new Promise<boolean>((r) => setTimeout(() => r(false), 500))]);
  };
  try {
    const [a, b] = [await open(), await open()];
    const third = await open();
    assert.equal(await closedSoon(third), true, 'the third connection from one IP is closed');
    assert.equal(await closedSoon(a), false, 'the first two stay open');
    const releasedBefore = limits.released;
    a.destroy();
    await waitFor('the listener to release the closed connection', 5000, () => when(limits.released > releasedBefore), 10);
    const again = await open();
    assert.equal(await closedSoon(again), false, 'a closed connection frees its slot');
    b.destroy();
    again.destroy();
  } finally {
    await listener.close();
  }
});

test('a clean close of a TLS listener still answers the requests its connections already sent', async () => {
  let dispatched = false;
  const listener = new Listener(
    {
      dispatch: async (header) => {
        dispatched = true;
        // Fixed on purpose: a slow handler, so that the request is still in flight when the listener closes.
        await new Promise((r) => setTimeout(r, 200));
        const frame = Buffer.alloc(8);
        frame.writeInt32BE(4, 0);
        frame.writeInt32BE(header.correlationId, 4);
        return [frame];
      },
    },
    options({ tls: serverTls(sslSettings({})) }),
    quiet,
  );
  const { port } = await listener.listen('127.0.0.1', 0);
  const client = await tlsClient(port, false);
  try {
    const received: Buffer[] = [];
    client.on('data', (d: Buffer) => received.push(d));
    client.write(apiVersions(7));
    await waitFor('the request to reach the handler', 5000, () => when(dispatched), 5);
    await listener.close();
    await once(client, 'close');
    const answer = Buffer.concat(received);
    assert.equal(answer.length, 8, 'the response arrived before the connection closed');
    assert.equal(answer.readInt32BE(4), 7);
  } finally {
    client.destroy();
  }
});
