/**
 * One classic group's membership: members in join order, static-member index, protocol votes,
 * the generation and the state machine Empty → PreparingRebalance → CompletingRebalance → Stable
 * (and back). It knows nothing of timers, records or responses; `GroupMembership` drives it.
 * A parked JoinGroup or SyncGroup is held on its member as an opaque waiter `W`.
 */
import { CONSUMER_PROTOCOL_TYPE, subscribedTopics } from './subscribed-topics.js';

export type GroupState = 'Empty' | 'PreparingRebalance' | 'CompletingRebalance' | 'Stable' | 'Dead';

const VALID_PREVIOUS_STATES: Record<GroupState, readonly GroupState[]> = {
  Empty: ['PreparingRebalance'],
  PreparingRebalance: ['Stable', 'CompletingRebalance', 'Empty'],
  CompletingRebalance: ['PreparingRebalance'],
  Stable: ['CompletingRebalance'],
  Dead: ['Stable', 'PreparingRebalance', 'CompletingRebalance', 'Empty', 'Dead'],
};

export interface Protocol {
  name: string;
  metadata: Buffer;
}

export interface ClassicMember<W> {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  rebalanceTimeoutMs: number;
  sessionTimeoutMs: number;
  protocolType: string;
  /** In the member's order of preference. */
  protocols: Protocol[];
  assignment: Buffer;
  awaitingJoin: W | null;
  awaitingSync: W | null;
  /** Joined in the current rebalance: its session is the join timeout, not yet heartbeats. */
  isNew: boolean;
}

export const EMPTY_ASSIGNMENT: Buffer = Buffer.alloc(0);

export function sameProtocols(a: readonly Protocol[], b: readonly Protocol[]): boolean {
  return a.length === b.length && a.every((p, i) => p.name === b[i]!.name && p.metadata.equals(b[i]!.metadata));
}

export class ClassicGroup<W> {
  state: GroupState;
  previousState: GroupState;
  /** When the state last changed; null for groups loaded from records that predate the field. */
  currentStateTimestamp: number | null;
  generationId: number;
  protocolType: string | null;
  protocolName: string | null;
  leaderId: string | null = null;
  readonly members = new Map<string, ClassicMember<W>>();
  /** Member ids handed out with MEMBER_ID_REQUIRED and not yet rejoined (KIP-394). */
  readonly pendingJoinMembers = new Set<string>();
  /** Members of the new generation whose SyncGroup has not arrived yet. */
  readonly pendingSyncMembers = new Set<string>();
  /** Set while the initial rebalance delay runs and somebody joined: the delay is extended. */
  newMemberAdded = false;
  /** Topics the members subscribe to (consumer protocol); null when unknown. */
  subscribedTopics: Set<string> | null = null;
  private readonly staticMembers = new Map<string, string>();
  private readonly protocolSupport = new Map<string, number>();

  constructor(
    readonly groupId: string,
    init: {
      state: GroupState;
      generationId: number;
      protocolType: string | null;
      protocolName: string | null;
      currentStateTimestamp: number | null;
    },
  ) {
    this.state = init.state;
    this.previousState = init.state;
    this.generationId = init.generationId;
    this.protocolType = init.protocolType;
    this.protocolName = init.protocolName;
    this.currentStateTimestamp = init.currentStateTimestamp;
  }

  is(state: GroupState): boolean {
    return this.state === state;
  }

  transitionTo(state: GroupState, now: number): void {
    if (!VALID_PREVIOUS_STATES[state].includes(this.state)) {
      throw new Error(`group ${this.groupId}: illegal transition ${this.state} -> ${state}`);
    }
    this.previousState = this.state;
    this.state = state;
    this.currentStateTimestamp = now;
  }

  /** A rebalance may start from these states; in PreparingRebalance one is already running. */
  canRebalance(): boolean {
    return VALID_PREVIOUS_STATES.PreparingRebalance.includes(this.state);
  }

  member(memberId: string): ClassicMember<W> | undefined {
    return this.members.get(memberId);
  }

  staticMemberId(groupInstanceId: string): string | undefined {
    return this.staticMembers.get(groupInstanceId);
  }

  isLeader(memberId: string): boolean {
    return this.leaderId === memberId;
  }

  add(member: ClassicMember<W>): void {
    if (member.groupInstanceId !== null) this.staticMembers.set(member.groupInstanceId, member.memberId);
    if (this.members.size === 0) this.protocolType = member.protocolType;
    this.leaderId ??= member.memberId;
    this.members.set(member.memberId, member);
    this.countProtocols(member.protocols, 1);
    this.pendingJoinMembers.delete(member.memberId);
  }

  /** Removes a member (or pending member id); the first remaining member leads if the leader left. */
  remove(memberId: string): ClassicMember<W> | undefined {
    const removed = this.members.get(memberId);
    if (removed !== undefined) {
      this.members.delete(memberId);
      this.countProtocols(removed.protocols, -1);
      if (removed.groupInstanceId !== null) this.staticMembers.delete(removed.groupInstanceId);
    }
    if (this.isLeader(memberId)) this.leaderId = this.members.keys().next().value ?? null;
    this.pendingJoinMembers.delete(memberId);
    this.pendingSyncMembers.delete(memberId);
    return removed;
  }

  /**
   * A known static member came back with a new member id: the new id takes the old member's
   * place, assignment and leadership. The caller answers the old id's parked requests.
   */
  replaceStaticMember(
    groupInstanceId: string,
    oldMemberId: string,
    newMemberId: string,
  ): { old: ClassicMember<W>; replacement: ClassicMember<W> } {
    const old = this.members.get(oldMemberId);
    if (old === undefined) throw new Error(`group ${this.groupId}: no member ${oldMemberId} to replace`);
    this.members.delete(oldMemberId);
    const replacement: ClassicMember<W> = { ...old, memberId: newMemberId, awaitingJoin: null, awaitingSync: null, isNew: false };
    this.members.set(newMemberId, replacement);
    if (this.isLeader(oldMemberId)) this.leaderId = newMemberId;
    if (this.pendingSyncMembers.delete(oldMemberId)) this.pendingSyncMembers.add(newMemberId);
    this.staticMembers.set(groupInstanceId, newMemberId);
    return { old, replacement };
  }

  updateProtocols(member: ClassicMember<W>, protocols: Protocol[]): void {
    this.countProtocols(member.protocols, -1);
    member.protocols = protocols;
    this.countProtocols(protocols, 1);
  }

  numAwaitingJoin(): number {
    let n = 0;
    for (const m of this.members.values()) if (m.awaitingJoin !== null) n++;
    return n;
  }

  hasAllMembersJoined(): boolean {
    return this.numAwaitingJoin() === this.members.size && this.pendingJoinMembers.size === 0;
  }

  /** The longest rebalance timeout of the members: how long a rebalance waits for rejoins. */
  rebalanceTimeoutMs(): number {
    let max = 0;
    for (const m of this.members.values()) max = Math.max(max, m.rebalanceTimeoutMs);
    return max;
  }

  /** Whether a member with this protocol type and these protocols may join. */
  supportsProtocols(protocolType: string, protocolNames: readonly string[]): boolean {
    if (this.is('Empty')) return protocolType !== '' && protocolNames.length > 0;
    return this.protocolType === protocolType && protocolNames.some((n) => this.protocolSupport.get(n) === this.members.size);
  }

  /**
   * The protocol every member supports that most members prefer. Ties go to the protocol voted
   * first in join order (Kafka leaves ties to hash order).
   */
  selectProtocol(): string {
    const votes = new Map<string, number>();
    for (const m of this.members.values()) {
      const vote = m.protocols.find((p) => this.protocolSupport.get(p.name) === this.members.size);
      if (vote === undefined) throw new Error(`group ${this.groupId}: member ${m.memberId} supports no common protocol`);
      votes.set(vote.name, (votes.get(vote.name) ?? 0) + 1);
    }
    let best: [string, number] | null = null;
    for (const v of votes) if (best === null || v[1] > best[1]) best = v;
    if (best === null) throw new Error(`group ${this.groupId}: cannot select a protocol without members`);
    return best[0];
  }

  /**
   * If the leader did not rejoin, the first member that did leads. False when nobody rejoined:
   * the generation cannot advance yet.
   */
  maybeElectNewJoinedLeader(): boolean {
    if (this.leaderId === null) return false;
    if (this.members.get(this.leaderId)?.awaitingJoin != null) return true;
    for (const m of this.members.values()) {
      if (m.awaitingJoin !== null) {
        this.leaderId = m.memberId;
        return true;
      }
    }
    return false;
  }

  initNextGeneration(now: number): void {
    this.generationId++;
    if (this.members.size > 0) {
      this.protocolName = this.selectProtocol();
      this.subscribedTopics = this.computeSubscribedTopics();
      this.transitionTo('CompletingRebalance', now);
    } else {
      this.protocolName = null;
      this.subscribedTopics = this.computeSubscribedTopics();
      this.transitionTo('Empty', now);
    }
    this.pendingSyncMembers.clear();
  }

  /** The selected protocol's metadata of a member (empty before a protocol is chosen). */
  metadataOf(member: ClassicMember<W>): Buffer {
    return member.protocols.find((p) => p.name === this.protocolName)?.metadata ?? EMPTY_ASSIGNMENT;
  }

  usesConsumerProtocol(): boolean {
    return this.protocolType === CONSUMER_PROTOCOL_TYPE;
  }

  isSubscribedToTopic(topic: string): boolean {
    return this.subscribedTopics === null ? this.usesConsumerProtocol() : this.subscribedTopics.has(topic);
  }

  computeSubscribedTopics(): Set<string> | null {
    if (!this.usesConsumerProtocol()) return null;
    const all = new Set<string>();
    if (this.members.size === 0) return all;
    if (this.protocolName === null) return null;
    for (const m of this.members.values()) {
      const topics = subscribedTopics(this.metadataOf(m));
      if (topics === null) return null;
      for (const t of topics) all.add(t);
    }
    return all;
  }

  private countProtocols(protocols: readonly Protocol[], delta: number): void {
    for (const p of protocols) this.protocolSupport.set(p.name, (this.protocolSupport.get(p.name) ?? 0) + delta);
  }
}
