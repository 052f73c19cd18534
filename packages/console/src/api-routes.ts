/**
 * The API's paths and query parameters, mapped onto the handlers: what `/api/...` answers,
 * apart from the event stream, which the server keeps open itself.
 */
import { ApiError } from './api-errors.js';
import { messages, overview, topic, topics, type ReadFrom } from './api-handlers.js';
import type { ClusterReader } from './cluster-reader.js';

const DEFAULT_LIMIT = 50;

function integerParam(params: URLSearchParams, name: string, fallback: number, min: number, max: number): number {
  const raw = params.get(name);
  if (raw === null) return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < min || n > max) throw new ApiError(400, `${name} must be an integer in [${min}, ${max}], not '${raw}'`);
  return n;
}

function readFrom(params: URLSearchParams): ReadFrom {
  const raw = params.get('from') ?? 'end';
  if (raw === 'end') return 'end';
  if (!/^\d{1,19}$/.test(raw)) throw new ApiError(400, `from must be an offset or 'end', not '${raw}'`);
  return { offset: BigInt(raw) };
}

/** The JSON body for a GET of `url` (its path and query), or an ApiError. */
export async function answerApi(reader: ClusterReader, url: URL): Promise<unknown> {
  const parts = url.pathname.split('/').slice(2).map(decodeURIComponent);
  if (parts.length === 1 && parts[0] === 'overview') return overview(reader);
  if (parts.length === 1 && parts[0] === 'topics') return topics(reader);
  if (parts.length === 2 && parts[0] === 'topics') return topic(reader, parts[1]!);
  if (parts.length === 3 && parts[0] === 'topics' && parts[2] === 'messages') {
    const partition = integerParam(url.searchParams, 'partition', 0, 0, 0x7fffffff);
    const limit = integerParam(url.searchParams, 'limit', DEFAULT_LIMIT, 1, 0x7fffffff);
    return messages(reader, parts[1]!, partition, readFrom(url.searchParams), limit);
  }
  throw new ApiError(404, `no such API: ${url.pathname}`);
}
