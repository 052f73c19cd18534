/**
 * Request frames at and just over the caps Kafka 4.4's decoders put on array elements, tagged
 * fields and compact string lengths, for the tests that send them to Sluice and to Kafka. Each
 * is written with the generated codecs (whose writers do not enforce the caps) or, where the
 * frame must claim more than it carries, by hand.
 */
import { requestHeaderVersion } from '@sluice/protocol/envelope.js';
import { SIZE_PREFIX_BYTES } from '@sluice/protocol/framing.js';
import * as M from '@sluice/protocol/messages/index.js';
import type { RawTaggedField } from '@sluice/protocol/primitives/codec-support.js';
import { MAX_ARRAY_ELEMENTS, MAX_STRING_BYTES, MAX_TAGGED_FIELDS } from '@sluice/protocol/primitives/reader.js';
import { Writer } from '@sluice/protocol/primitives/writer.js';

const METADATA_KEY = 3;
const LIST_GROUPS_KEY = 16;
/** Classic encoding: int32 array counts, topics as plain names. */
const METADATA_CLASSIC = 1;
/** Flexible: compact counts and strings, tagged fields in header and body. */
const METADATA_FLEXIBLE = 12;
/** Flexible, with a string array whose empty elements take one byte each. */
const LIST_GROUPS_FLEXIBLE = 5;

export interface BoundFrame {
  readonly name: string;
  /** True when Kafka 4.4 refuses it (and closes the connection). */
  readonly overLimit: boolean;
  readonly frame: () => Buffer;
}

/** `count` unknown tagged fields, all tag 0 with empty bodies: two bytes each on the wire. */
function emptyTags(count: number): RawTaggedField[] {
  const none = Buffer.alloc(0);
  return Array.from({ length: count }, () => ({ tag: 0, data: none }));
}

function frame(apiKey: number, version: number, headerTags: number, body: (w: Writer) => void): Buffer {
  const w = new Writer(1024);
  const sizeAt = w.reserve(SIZE_PREFIX_BYTES);
  M.RequestHeader.write(
    w,
    {
      requestApiKey: apiKey,
      requestApiVersion: version,
      correlationId: 1,
      clientId: 'bounds',
      _unknownTaggedFields: emptyTags(headerTags),
    },
    requestHeaderVersion(apiKey, version),
  );
  body(w);
  w.patchInt32(sizeAt, w.offset - SIZE_PREFIX_BYTES);
  return w.finish();
}

function classicMetadata(topics: number): Buffer {
  const names = Array.from({ length: topics }, () => ({ name: '' }));
  return frame(METADATA_KEY, METADATA_CLASSIC, 0, (w) => M.MetadataRequest.write(w, { topics: names }, METADATA_CLASSIC));
}

function listGroups(states: number): Buffer {
  const body = { statesFilter: new Array<string>(states).fill(''), typesFilter: [] };
  return frame(LIST_GROUPS_KEY, LIST_GROUPS_FLEXIBLE, 0, (w) => M.ListGroupsRequest.write(w, body, LIST_GROUPS_FLEXIBLE));
}

function flexibleMetadata(body: M.MetadataRequestDataInput, headerTags = 0): Buffer {
  return frame(METADATA_KEY, METADATA_FLEXIBLE, headerTags, (w) =>
    M.MetadataRequest.write(w, { topics: null, ...body }, METADATA_FLEXIBLE),
  );
}

/** A classic Metadata request whose topic count is `claimed` but which carries no topics. */
export function hollowClassicMetadata(claimed: number): Buffer {
  return frame(METADATA_KEY, METADATA_CLASSIC, 0, (w) => w.int32(claimed));
}

export const BOUND_FRAMES: readonly BoundFrame[] = [
  { name: `classic array of ${MAX_ARRAY_ELEMENTS} elements`, overLimit: false, frame: () => classicMetadata(MAX_ARRAY_ELEMENTS) },
  { name: `classic array of ${MAX_ARRAY_ELEMENTS + 1} elements`, overLimit: true, frame: () => classicMetadata(MAX_ARRAY_ELEMENTS + 1) },
  {
    name: 'classic array claiming 2,000,000,000 elements in a tiny frame',
    overLimit: true,
    frame: () => hollowClassicMetadata(2_000_000_000),
  },
  { name: `compact array of ${MAX_ARRAY_ELEMENTS} elements`, overLimit: false, frame: () => listGroups(MAX_ARRAY_ELEMENTS) },
  { name: `compact array of ${MAX_ARRAY_ELEMENTS + 1} elements`, overLimit: true, frame: () => listGroups(MAX_ARRAY_ELEMENTS + 1) },
  {
    name: `${MAX_TAGGED_FIELDS} tagged fields in the body`,
    overLimit: false,
    frame: () => flexibleMetadata({ _unknownTaggedFields: emptyTags(MAX_TAGGED_FIELDS) }),
  },
  {
    name: `${MAX_TAGGED_FIELDS + 1} tagged fields in the body`,
    overLimit: true,
    frame: () => flexibleMetadata({ _unknownTaggedFields: emptyTags(MAX_TAGGED_FIELDS + 1) }),
  },
  {
    name: `${MAX_TAGGED_FIELDS + 1} tagged fields in a nested struct`,
    overLimit: true,
    frame: () => flexibleMetadata({ topics: [{ name: 'nested', _unknownTaggedFields: emptyTags(MAX_TAGGED_FIELDS + 1) }] }),
  },
  {
    name: `${MAX_TAGGED_FIELDS} tagged fields in the request header`,
    overLimit: false,
    frame: () => flexibleMetadata({}, MAX_TAGGED_FIELDS),
  },
  {
    name: `${MAX_TAGGED_FIELDS + 1} tagged fields in the request header`,
    overLimit: true,
    frame: () => flexibleMetadata({}, MAX_TAGGED_FIELDS + 1),
  },
  {
    name: `compact string of ${MAX_STRING_BYTES} bytes`,
    overLimit: false,
    frame: () => flexibleMetadata({ topics: [{ name: 'a'.repeat(MAX_STRING_BYTES) }] }),
  },
  {
    name: `compact string of ${MAX_STRING_BYTES + 1} bytes`,
    overLimit: true,
    frame: () => flexibleMetadata({ topics: [{ name: 'a'.repeat(MAX_STRING_BYTES + 1) }] }),
  },
];
