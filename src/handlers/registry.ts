/**
 * The dispatch table of the broker, built from the handler entries. It is also the only source
 * of the ApiVersions answer: an API is advertised exactly when a handler for it is registered,
 * with that handler's advertised range, never from a hand-kept list.
 *
 * A handler's module loads on the first request of its API. While any module is loading, every
 * request waits for the loads asked for before it, so requests still start in the order they
 * arrived (Kafka handles a connection's requests in order); once nothing is loading, `get`
 * answers the loaded handler itself and costs nothing more.
 */
import { API_TABLE } from '@sluice/protocol/messages/api-table.js';
import type { VersionRange } from '@sluice/protocol/primitives/codec-support.js';
import type { ApiVersionRange, HandlerEntry, RegisteredApi } from './handler.js';

export class HandlerRegistry {
  /** The versions served, the unstable newest one already taken off: `supports` runs on every request. */
  private readonly served = new Map<number, VersionRange>();
  /** Until its module has loaded, an API's requests go through this stand-in. */
  private readonly standIns = new Map<number, RegisteredApi>();
  private readonly loaded = new Map<number, RegisteredApi>();
  private readonly loading = new Map<number, Promise<RegisteredApi>>();
  /** Settles once every load asked for so far has; null while nothing loads. */
  private loads: Promise<unknown> | null = null;
  /** What ApiVersions lists. */
  readonly supportedApis: readonly ApiVersionRange[];

  /** `loadCoordinators` runs with the module of an API that `usesCoordinators`: its requests wait for both. */
  constructor(
    handlers: readonly HandlerEntry[],
    private readonly loadCoordinators: () => Promise<void> = async () => undefined,
  ) {
    for (const h of handlers) {
      if (this.served.has(h.apiKey)) throw new Error(`two handlers registered for API ${h.apiKey}`);
      this.served.set(h.apiKey, { lo: h.versions.lo, hi: stableMax(h.apiKey, h.versions) });
      this.standIns.set(h.apiKey, {
        apiKey: h.apiKey,
        name: h.name,
        versions: h.versions,
        advertisedVersions: h.advertisedVersions,
        invoke: async (body, ctx) => (await this.whenLoaded(h)).invoke(body, ctx),
      });
    }
    this.supportedApis = [...handlers]
      .sort((a, b) => a.apiKey - b.apiKey)
      .map((h) => ({ apiKey: h.apiKey, minVersion: h.advertisedVersions.lo, maxVersion: stableMax(h.apiKey, h.advertisedVersions) }));
  }

  get(apiKey: number): RegisteredApi | undefined {
    return (this.loads === null ? this.loaded.get(apiKey) : undefined) ?? this.standIns.get(apiKey);
  }

  /** Whether a request at `version` is served (which may be narrower than what is advertised). */
  supports(apiKey: number, version: number): boolean {
    const range = this.served.get(apiKey);
    return range !== undefined && version >= range.lo && version <= range.hi;
  }

  /** Resolves after `entry`'s module and every module asked for before it have loaded. */
  private whenLoaded(entry: HandlerEntry): Promise<RegisteredApi> {
    const ready = this.loaded.get(entry.apiKey);
    let load = this.loading.get(entry.apiKey);
    if (ready === undefined && load === undefined) {
      const module = entry.usesCoordinators === true ? Promise.all([entry.load(), this.loadCoordinators()]).then(([h]) => h) : entry.load();
      load = module.then((h) => {
        this.loaded.set(entry.apiKey, h);
        return h;
      });
      this.loading.set(entry.apiKey, load);
      // A failed load is retried by the next request of its API (the failing one closes its connection).
      load.catch(() => this.loading.delete(entry.apiKey));
      const all: Promise<unknown> = Promise.allSettled([this.loads, load]).then(() => {
        if (this.loads === all) this.loads = null;
      });
      this.loads = all;
    }
    if (this.loads === null) return Promise.resolve(ready!);
    const own = load;
    // A plain value, not a promise, once loaded: every waiting request resumes after the same number of steps, in order.
    return this.loads.then(() => this.loaded.get(entry.apiKey) ?? own!);
  }
}

/** Kafka neither advertises nor serves a version its definitions mark as still unstable. */
function stableMax(apiKey: number, range: VersionRange): number {
  const api = API_TABLE.find((a) => a.apiKey === apiKey);
  const unstable = api?.latestVersionUnstable === true && range.hi === api.requestVersions.hi;
  return unstable ? range.hi - 1 : range.hi;
}
