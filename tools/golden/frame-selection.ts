// Chooses which captured exchanges become committed fixtures: a small, deduplicated set with one
// exchange per client × API × version (per scenario for Produce and Fetch, whose contents differ by
// compression), skipping large frames.
import type { Exchange, RecordedFrame } from './recording-proxy.js';

export interface CompleteExchange extends Exchange {
  response: RecordedFrame;
}

const PRODUCE = 0;
const FETCH = 1;
/** Fixtures should stay reviewable and cheap to commit. */
export const MAX_FIXTURE_BYTES = 16 * 1024;

function isComplete(exchange: Exchange): exchange is CompleteExchange {
  return exchange.response !== null;
}

function groupKey({ request }: Exchange): string {
  const perScenario = request.apiKey === PRODUCE || request.apiKey === FETCH;
  return [request.client, request.apiKey, request.apiVersion, perScenario ? request.scenario : ''].join('|');
}

/** The response after its correlation id, so that identical answers to repeated requests compare equal. */
function responseBody(exchange: CompleteExchange): Buffer {
  return exchange.response.bytes.subarray(4);
}

/**
 * Fetch: the largest response, which is the one carrying records (the rest are empty long polls).
 * Everything else: the first exchange, plus the last when its answer differs — this keeps both the
 * retriable error and the success of FindCoordinator (COORDINATOR_NOT_AVAILABLE while the offsets
 * topic is created) and of JoinGroup (MEMBER_ID_REQUIRED, KIP-394).
 */
function pick(group: CompleteExchange[]): CompleteExchange[] {
  const first = group[0];
  const last = group[group.length - 1];
  if (first === undefined || last === undefined) return [];
  if (first.request.apiKey === FETCH) {
    return [group.reduce((best, e) => (e.response.bytes.length > best.response.bytes.length ? e : best))];
  }
  return last !== first && !responseBody(last).equals(responseBody(first)) ? [first, last] : [first];
}

export function selectFixtures(exchanges: readonly Exchange[]): CompleteExchange[] {
  const groups = new Map<string, CompleteExchange[]>();
  for (const exchange of exchanges) {
    if (!isComplete(exchange)) continue;
    if (exchange.request.bytes.length > MAX_FIXTURE_BYTES || exchange.response.bytes.length > MAX_FIXTURE_BYTES) continue;
    const key = groupKey(exchange);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [exchange]);
    else group.push(exchange);
  }
  return [...groups.values()].flatMap(pick).sort((a, b) => a.request.arrival - b.request.arrival);
}
