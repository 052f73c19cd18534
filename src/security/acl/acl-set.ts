/**
 * An immutable index of a cluster's ACLs by resource pattern: what the authorizer decides on and
 * what DescribeAcls lists. A change (one resource's entries replaced) makes the next set, so a
 * request that read one set decides on one consistent state.
 */
import { bindingMatches, type AclBindingFilter } from '@sluice/protocol/acl/acl-filter.js';
import {
  PatternType,
  WILDCARD_RESOURCE,
  patternKey,
  type AccessControlEntry,
  type AclBinding,
  type ResourcePattern,
  type ResourceType,
} from '@sluice/protocol/acl/acl-types.js';

export interface ResourceAcls {
  readonly pattern: ResourcePattern;
  readonly entries: readonly AccessControlEntry[];
}

export class AclSet {
  static readonly EMPTY = new AclSet(new Map());

  /** LITERAL entries by `<type>:<name>`, PREFIXED resources by type: what `applicable` looks up per request. */
  private readonly literal = new Map<string, readonly AccessControlEntry[]>();
  private readonly prefixed = new Map<ResourceType, ResourceAcls[]>();

  private constructor(private readonly byPattern: ReadonlyMap<string, ResourceAcls>) {
    for (const r of byPattern.values()) {
      if (r.pattern.patternType === PatternType.LITERAL) this.literal.set(`${r.pattern.resourceType}:${r.pattern.name}`, r.entries);
      else this.prefixed.set(r.pattern.resourceType, [...(this.prefixed.get(r.pattern.resourceType) ?? []), r]);
    }
  }

  static of(bindings: readonly AclBinding[]): AclSet {
    const map = new Map<string, { pattern: ResourcePattern; entries: AccessControlEntry[] }>();
    for (const { pattern, entry } of bindings) {
      const key = patternKey(pattern);
      const held = map.get(key) ?? { pattern, entries: [] };
      held.entries.push(entry);
      map.set(key, held);
    }
    return new AclSet(map);
  }

  get size(): number {
    let n = 0;
    for (const r of this.byPattern.values()) n += r.entries.length;
    return n;
  }

  resources(): readonly ResourceAcls[] {
    return [...this.byPattern.values()];
  }

  bindings(): AclBinding[] {
    return this.resources().flatMap((r) => r.entries.map((entry) => ({ pattern: r.pattern, entry })));
  }

  entries(pattern: ResourcePattern): readonly AccessControlEntry[] {
    return this.byPattern.get(patternKey(pattern))?.entries ?? [];
  }

  /** The next set, with `pattern`'s entries replaced (none: the resource has no ACLs left). */
  withEntries(pattern: ResourcePattern, entries: readonly AccessControlEntry[]): AclSet {
    const next = new Map(this.byPattern);
    const key = patternKey(pattern);
    if (entries.length === 0) next.delete(key);
    else next.set(key, { pattern, entries: [...entries] });
    return new AclSet(next);
  }

  matching(filter: AclBindingFilter): AclBinding[] {
    return this.bindings().filter((b) => bindingMatches(filter, b));
  }

  /** The entries that apply to a resource: its LITERAL name, the LITERAL wildcard, and every PREFIXED pattern its name starts with. */
  applicable(resourceType: ResourceType, name: string): AccessControlEntry[] {
    const out = [...(this.literal.get(`${resourceType}:${name}`) ?? [])];
    if (name !== WILDCARD_RESOURCE) out.push(...(this.literal.get(`${resourceType}:${WILDCARD_RESOURCE}`) ?? []));
    for (const { pattern, entries } of this.prefixed.get(resourceType) ?? []) if (name.startsWith(pattern.name)) out.push(...entries);
    return out;
  }

  /** Every resource of a type with its entries (for `authorizeByResourceType`). */
  ofType(resourceType: ResourceType): readonly ResourceAcls[] {
    return this.resources().filter((r) => r.pattern.resourceType === resourceType);
  }
}
