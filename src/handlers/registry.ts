/**
 * The dispatch table of the broker, built from the handler modules. It is also the only source
 * of the ApiVersions answer: an API is advertised exactly when a handler for it is registered,
 * with that handler's advertised range, never from a hand-kept list.
 */
import { API_MESSAGES } from '../protocol/messages/index.js';
import type { VersionRange } from '../protocol/primitives/codec-support.js';
import type { ApiVersionRange, RegisteredApi } from './handler.js';

export class HandlerRegistry {
  private readonly byKey = new Map<number, RegisteredApi>();
  /** What ApiVersions lists. */
  readonly supportedApis: readonly ApiVersionRange[];

  constructor(handlers: readonly RegisteredApi[]) {
    for (const h of handlers) {
      if (this.byKey.has(h.apiKey)) throw new Error(`two handlers registered for API ${h.apiKey}`);
      this.byKey.set(h.apiKey, h);
    }
    this.supportedApis = [...this.byKey.values()]
      .sort((a, b) => a.apiKey - b.apiKey)
      .map((h) => ({ apiKey: h.apiKey, minVersion: h.advertisedVersions.lo, maxVersion: stableMax(h, h.advertisedVersions) }));
  }

  get(apiKey: number): RegisteredApi | undefined {
    return this.byKey.get(apiKey);
  }

  /** Whether a request at `version` is served (which may be narrower than what is advertised). */
  supports(apiKey: number, version: number): boolean {
    const h = this.byKey.get(apiKey);
    return h !== undefined && version >= h.versions.lo && version <= stableMax(h, h.versions);
  }
}

/** Kafka neither advertises nor serves a version its definitions mark as still unstable. */
function stableMax(h: RegisteredApi, range: VersionRange): number {
  const api = API_MESSAGES.find((a) => a.apiKey === h.apiKey);
  const unstable = api?.latestVersionUnstable === true && range.hi === api.request.validVersions.hi;
  return unstable ? range.hi - 1 : range.hi;
}
