/**
 * One request/response exchange over a raw socket with the generated codecs, for tests that
 * check exact error codes and fields (the same call works against Sluice and Apache Kafka).
 */
import { decodeResponseHeader, encodeRequest } from '@sluice/protocol/envelope.js';
import type { MessageCodec } from '@sluice/protocol/primitives/codec-support.js';
import { Reader } from '@sluice/protocol/primitives/reader.js';
import { WireClient } from './wire-client.js';

let correlation = 1;

export async function wireCall<ReqIn, Res>(
  bootstrap: string,
  request: MessageCodec<unknown, ReqIn>,
  response: MessageCodec<Res, unknown>,
  version: number,
  body: ReqIn,
): Promise<Res> {
  const colon = bootstrap.lastIndexOf(':');
  const client = await WireClient.connect(bootstrap.slice(0, colon), Number(bootstrap.slice(colon + 1)));
  try {
    const apiKey = request.apiKey!;
    const id = correlation++;
    client.send(encodeRequest(apiKey, version, id, 'sluice-admin-test', (w) => request.write(w, body, version)));
    const frame = await client.readFrame(30_000);
    const { bodyOffset } = decodeResponseHeader(frame, apiKey, version);
    return response.read(new Reader(frame, bodyOffset), version);
  } finally {
    client.close();
  }
}
