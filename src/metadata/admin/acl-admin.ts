/**
 * CreateAcls and DeleteAcls as Kafka's AclAuthorizer carries them out: the bindings grouped by
 * resource pattern, each resource changed by one read-modify-write of its ACLs where they are
 * stored (`MetadataWriter.updateResourceAcls`: the single broker's metadata file, or ZooKeeper
 * with a conditional write, retried, and a change notification). A deletion removes from each
 * resource a filter matches the entries that filter matches, reporting each removed binding under
 * the first filter that matched it. Validation (and authorization) is the handler's.
 */
import { kafkaErrorCode } from '@sluice/protocol/common/kafka-error.js';
import {
  entryMatches,
  patternKey,
  patternMatches,
  sameEntry,
  type AclBinding,
  type AclBindingFilter,
  type AclSet,
  type ResourcePattern,
} from '../../security/acl/index.js';
import type { MetadataWriter } from '../metadata-writer.js';

export type AclCreateResult = { readonly errorCode: number; readonly errorMessage: string | null };
export type AclDeleteResult = AclCreateResult & { readonly deleted: readonly AclBinding[] };

const OK: AclCreateResult = { errorCode: 0, errorMessage: null };

function failure(err: unknown): AclCreateResult {
  return { errorCode: kafkaErrorCode(err), errorMessage: err instanceof Error ? err.message : String(err) };
}

export class AclAdmin {
  constructor(private readonly writer: MetadataWriter) {}

  /** The ACLs as the image holds them now. */
  get current(): AclSet {
    return this.writer.image.acls;
  }

  /** One result per binding, in order. */
  async create(bindings: readonly AclBinding[]): Promise<AclCreateResult[]> {
    const byResource = new Map<string, { pattern: ResourcePattern; indexes: number[] }>();
    bindings.forEach((b, i) => {
      const key = patternKey(b.pattern);
      const held = byResource.get(key) ?? { pattern: b.pattern, indexes: [] };
      held.indexes.push(i);
      byResource.set(key, held);
    });
    const results: AclCreateResult[] = bindings.map(() => OK);
    for (const { pattern, indexes } of byResource.values()) {
      const added = indexes.map((i) => bindings[i]!.entry);
      try {
        await this.writer.updateResourceAcls(pattern, (current) => {
          const fresh = added.filter((e, n) => !current.some((c) => sameEntry(c, e)) && !added.slice(0, n).some((c) => sameEntry(c, e)));
          return fresh.length === 0 ? current : [...current, ...fresh];
        });
      } catch (err) {
        const failed = failure(err);
        for (const i of indexes) results[i] = failed;
      }
    }
    return results;
  }

  /** One result per filter, in order, with the bindings it removed. */
  async delete(filters: readonly AclBindingFilter[]): Promise<AclDeleteResult[]> {
    const deleted: AclBinding[][] = filters.map(() => []);
    const errors: (AclCreateResult | null)[] = filters.map(() => null);
    for (const { pattern } of this.current.resources()) {
      const matching = filters.flatMap((f, i) => (patternMatches(f.pattern, pattern) ? [i] : []));
      if (matching.length === 0) continue;
      // The update may run again on a fresher read: only its last run's removals count.
      let removed: { filter: number; binding: AclBinding }[] = [];
      try {
        await this.writer.updateResourceAcls(pattern, (current) => {
          removed = [];
          const kept = current.filter((entry) => {
            const first = matching.find((i) => entryMatches(filters[i]!.entry, entry));
            if (first === undefined) return true;
            removed.push({ filter: first, binding: { pattern, entry } });
            return false;
          });
          return removed.length === 0 ? current : kept;
        });
        for (const r of removed) deleted[r.filter]!.push(r.binding);
      } catch (err) {
        const failed = failure(err);
        for (const i of matching) errors[i] ??= failed;
      }
    }
    return filters.map((_, i) => ({ ...(errors[i] ?? OK), deleted: errors[i] === null ? deleted[i]! : [] }));
  }
}
