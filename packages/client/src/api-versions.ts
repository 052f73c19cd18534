/**
 * API version negotiation: for each API the client knows, the highest version that both the
 * client's generated codecs and the broker's ApiVersions ranges cover.
 */
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { API_MESSAGES } from '@sluice/protocol/messages/index.js';
import { ErrorCode } from '@sluice/protocol/errors.js';

export interface VersionRange {
  readonly min: number;
  readonly max: number;
}

export interface BrokerApiRange extends VersionRange {
  readonly apiKey: number;
}

const CONTROLLED_SHUTDOWN_KEY = 7;

/**
 * ControlledShutdown v0 travels behind request header v0 (no client id), which Kafka 4 dropped
 * from the RequestHeader definition this client writes; every broker that has the API also
 * serves v1+, so the client starts there.
 */
function lowestEncodable(apiKey: number, lo: number): number {
  return apiKey === CONTROLLED_SHUTDOWN_KEY ? Math.max(lo, 1) : lo;
}

/**
 * The versions this client can encode, per API key: every generated API, so the ZooKeeper-era
 * inter-broker ones too (a controller sends them); an upstream version still in development is
 * left out.
 */
export const CLIENT_API_RANGES: ReadonlyMap<number, VersionRange> = new Map(
  API_MESSAGES.map((api) => {
    const { lo, hi } = api.request.validVersions;
    return [api.apiKey, { min: lowestEncodable(api.apiKey, lo), max: api.latestVersionUnstable ? hi - 1 : hi }];
  }),
);

/** The negotiated version per API key; APIs with no common version are absent. */
export class ApiVersionTable {
  private readonly versions: ReadonlyMap<number, number>;

  constructor(broker: readonly BrokerApiRange[], client: ReadonlyMap<number, VersionRange> = CLIENT_API_RANGES) {
    const versions = new Map<number, number>();
    for (const b of broker) {
      const c = client.get(b.apiKey);
      if (c === undefined) continue;
      const max = Math.min(b.max, c.max);
      if (max >= Math.max(b.min, c.min)) versions.set(b.apiKey, max);
    }
    this.versions = versions;
  }

  has(apiKey: number): boolean {
    return this.versions.has(apiKey);
  }

  /** Throws UNSUPPORTED_VERSION when the broker and the client share no version of the API. */
  version(apiKey: number, apiName: string): number {
    const v = this.versions.get(apiKey);
    if (v === undefined) {
      throw new KafkaError(ErrorCode.UNSUPPORTED_VERSION, `the broker and this client share no version of ${apiName} (API key ${apiKey})`);
    }
    return v;
  }
}
