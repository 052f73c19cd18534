/**
 * The dispatch table of the broker, built from the handler modules. It is also the only source
 * of the ApiVersions answer: an API is advertised exactly when a handler for it is registered,
 * with that handler's version range, never from a hand-kept list.
 */
import { API_MESSAGES } from '../protocol/messages/index.js';
import type { ApiVersionRange, RegisteredApi } from './handler.js';

export class HandlerRegistry {
  private readonly byKey = new Map<number, RegisteredApi>();
  readonly supportedApis: readonly ApiVersionRange[];

  constructor(handlers: readonly RegisteredApi[]) {
    for (const h of handlers) {
      if (this.byKey.has(h.apiKey)) throw new Error(`two handlers registered for API ${h.apiKey}`);
      this.byKey.set(h.apiKey, h);
    }
    this.supportedApis = [...this.byKey.values()]
      .sort((a, b) => a.apiKey - b.apiKey)
      .map((h) => ({ apiKey: h.apiKey, minVersion: h.versions.lo, maxVersion: advertisedMax(h) }));
  }

  get(apiKey: number): RegisteredApi | undefined {
    return this.byKey.get(apiKey);
  }

  supports(apiKey: number, version: number): boolean {
    const range = this.supportedApis.find((a) => a.apiKey === apiKey);
    return range !== undefined && version >= range.minVersion && version <= range.maxVersion;
  }
}

/** Kafka does not advertise a version its definitions mark as still unstable. */
function advertisedMax(h: RegisteredApi): number {
  const api = API_MESSAGES.find((a) => a.apiKey === h.apiKey);
  const unstable = api?.latestVersionUnstable === true && h.versions.hi === api.request.validVersions.hi;
  return unstable ? h.versions.hi - 1 : h.versions.hi;
}
