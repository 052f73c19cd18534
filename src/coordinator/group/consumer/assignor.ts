/**
 * Server-side assignors (KIP-848): given the members (their subscribed topic ids and their current
 * target) and the partition counts, compute every member's new target. Pure functions: the same
 * input always gives the same assignment, so replays and tests are reproducible.
 */
import type { Assignment } from './assignment.js';
import { rangeAssignor } from './range-assignor.js';
import { uniformAssignor } from './uniform-assignor.js';

export interface AssignmentMember {
  memberId: string;
  topicIds: ReadonlySet<string>;
  /** The member's current target, which sticky assignors keep where they can. */
  current: Assignment;
}

export interface AssignmentSpec {
  /** Sorted by member id. */
  members: readonly AssignmentMember[];
  /** Topic id → partition count, for every topic some member subscribes to. */
  partitionCounts: ReadonlyMap<string, number>;
}

export interface ServerAssignor {
  readonly name: string;
  assign(spec: AssignmentSpec): Map<string, Assignment>;
}

const ASSIGNORS: ReadonlyMap<string, ServerAssignor> = new Map([uniformAssignor, rangeAssignor].map((a) => [a.name, a]));

/** The assignor of that name, if it is one Sluice has and the configuration enables. */
export function assignorNamed(name: string, enabled: readonly string[]): ServerAssignor | undefined {
  return enabled.includes(name) ? ASSIGNORS.get(name) : undefined;
}
