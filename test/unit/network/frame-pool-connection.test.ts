import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Logger } from '../../../src/common/logger.js';
import { Listener } from '../../../src/network/listener.js';
import { encodeRequest, encodeResponse } from '@sluice/protocol/envelope.js';
import { FrameBufferPool } from '@sluice/protocol/frame-buffer-pool.js';
import { ApiVersionsResponse } from '@sluice/protocol/messages/index.js';
import { testListenerOptions } from '../../helpers/listener-options.js';
import { WireClient } from '../../helpers/wire-client.js';

const PRODUCE = 0;
const FETCH = 1;
/** Larger than a socket chunk, so the frame is assembled in the pool's memory. */
const BODY_BYTES = 300_000;

async function served(apiKey: number, answer: 'respond' | 'fail'): Promise<{ pool: FrameBufferPool; frame: Buffer }> {
  const pool = new FrameBufferPool();
  const frames: Buffer[] = [];
  const listener = new Listener(
    {
      dispatch: async (header, body) => {
        frames.push(body.buf);
        if (answer === 'fail') throw new Error('handler failed');
        return encodeResponse(18, 0, header.correlationId, (w) => ApiVersionsResponse.write(w, { errorCode: 0, apiKeys: [] }, 0));
      },
    },
    testListenerOptions({ framePool: pool }),
    new Logger('test'),
  );
  const { host, port } = await listener.listen('127.0.0.1', 0);
  const client = await WireClient.connect(host, port);
  try {
    client.send(encodeRequest(apiKey, 3, 1, 'frame-pool-test', (w) => w.raw(Buffer.alloc(BODY_BYTES, 1))));
    if (answer === 'respond') await client.readFrame();
    else assert.ok(await client.closedWithin(5000), 'the connection closes after the failure');
  } finally {
    client.close();
    await listener.close();
  }
  assert.equal(frames.length, 1);
  return { pool, frame: frames[0]! };
}

test("a Produce frame's memory goes back to the pool once the request is answered", async () => {
  const { pool, frame } = await served(PRODUCE, 'respond');
  assert.equal(pool.retainedBytes, 512 * 1024);
  assert.equal(pool.take(BODY_BYTES).buffer, frame.buffer);
});

test('a frame of an API whose handler may keep views of it stays out of the pool', async () => {
  const { pool } = await served(FETCH, 'respond');
  assert.equal(pool.retainedBytes, 0);
});

test('a Produce frame whose handler failed stays out of the pool', async () => {
  const { pool } = await served(PRODUCE, 'fail');
  assert.equal(pool.retainedBytes, 0);
});
