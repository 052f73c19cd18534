/**
 * Request and response headers around a message body, with the header versions Kafka uses:
 * request header v2 (tagged fields) for flexible API versions and v1 otherwise; response header
 * v1 for flexible versions and v0 otherwise — except ApiVersions, whose response header is
 * always v0 so that a client can read it before it knows what the broker supports (KIP-511).
 */
import { API_TABLE } from './messages/api-table.js';
import { RequestHeader, ResponseHeader, type RequestHeaderData } from './messages/headers.js';
import { DecodeError } from './primitives/decode-error.js';
import { Reader } from './primitives/reader.js';
import { Writer, type FrameParts } from './primitives/writer.js';
import { SIZE_PREFIX_BYTES } from './framing.js';

export const API_VERSIONS_KEY = 18;

const firstFlexibleRequest = new Map<number, number | null>();
const firstFlexibleResponse = new Map<number, number | null>();
for (const api of API_TABLE) {
  firstFlexibleRequest.set(api.apiKey, api.firstFlexibleRequest);
  firstFlexibleResponse.set(api.apiKey, api.firstFlexibleResponse);
}

/** Flexible-version ranges are open-ended, so a version newer than any we know is flexible too. */
function isFlexible(first: number | null | undefined, version: number): boolean {
  return first !== null && first !== undefined && version >= first;
}

export function requestHeaderVersion(apiKey: number, apiVersion: number): number {
  return isFlexible(firstFlexibleRequest.get(apiKey), apiVersion) ? 2 : 1;
}

export function responseHeaderVersion(apiKey: number, apiVersion: number): number {
  if (apiKey === API_VERSIONS_KEY) return 0;
  return isFlexible(firstFlexibleResponse.get(apiKey), apiVersion) ? 1 : 0;
}

export interface DecodedRequestHeader {
  readonly header: RequestHeaderData;
  readonly headerVersion: number;
  /** Offset in the frame where the request body starts. */
  readonly bodyOffset: number;
}

/**
 * Reads the header of a request frame. The API key and version are peeked first because they
 * decide the header version. Throws DecodeError for a frame too short or malformed to carry one.
 */
export function decodeRequestHeader(frame: Buffer): DecodedRequestHeader {
  if (frame.length < 8) throw new DecodeError(`request frame of ${frame.length} bytes is too short for a header`);
  const apiKey = frame.readInt16BE(0);
  const apiVersion = frame.readInt16BE(2);
  const headerVersion = requestHeaderVersion(apiKey, apiVersion);
  const r = new Reader(frame);
  const header = RequestHeader.read(r, headerVersion);
  return { header, headerVersion, bodyOffset: r.offset };
}

/** Encodes a size-prefixed request frame (used by tools, tests and the console clients). */
export function encodeRequest(
  apiKey: number,
  apiVersion: number,
  correlationId: number,
  clientId: string | null,
  writeBody: (w: Writer) => void,
): Buffer {
  const w = new Writer(128);
  const sizeAt = w.reserve(SIZE_PREFIX_BYTES);
  RequestHeader.write(
    w,
    { requestApiKey: apiKey, requestApiVersion: apiVersion, correlationId, clientId },
    requestHeaderVersion(apiKey, apiVersion),
  );
  writeBody(w);
  w.patchInt32(sizeAt, w.offset - SIZE_PREFIX_BYTES);
  return w.finish();
}

/**
 * Encodes a size-prefixed response frame for a request of `apiKey` at `apiVersion`, as parts in
 * wire order: file ranges (Fetch records) stay out of memory and count in the size prefix.
 */
export function encodeResponse(apiKey: number, apiVersion: number, correlationId: number, writeBody: (w: Writer) => void): FrameParts {
  const w = new Writer(256);
  const sizeAt = w.reserve(SIZE_PREFIX_BYTES);
  ResponseHeader.write(w, { correlationId }, responseHeaderVersion(apiKey, apiVersion));
  writeBody(w);
  w.patchInt32(sizeAt, w.offset - SIZE_PREFIX_BYTES + w.externalBytes);
  return w.finishParts();
}

export interface DecodedResponseHeader {
  readonly correlationId: number;
  readonly bodyOffset: number;
}

/** Reads a response header; the caller knows which request it answers and so the header version. */
export function decodeResponseHeader(frame: Buffer, apiKey: number, apiVersion: number): DecodedResponseHeader {
  const r = new Reader(frame);
  const header = ResponseHeader.read(r, responseHeaderVersion(apiKey, apiVersion));
  return { correlationId: header.correlationId, bodyOffset: r.offset };
}
