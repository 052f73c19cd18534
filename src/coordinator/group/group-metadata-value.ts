/**
 * The GroupMetadataValue a classic group is persisted as — at the end of each rebalance, when a
 * static member is replaced, and (empty) when a group is created or falls Empty — and the group
 * rebuilt from it on load.
 */
import type { GroupMetadataValueData, GroupMetadataValueDataInput } from '@sluice/protocol/messages/coordinator/group-metadata.js';
import { ClassicGroup, type ClassicMember } from './classic-group.js';

export function groupMetadataValue<W>(group: ClassicGroup<W>, assignments: ReadonlyMap<string, Buffer>): GroupMetadataValueDataInput {
  return {
    protocolType: group.protocolType ?? '',
    generation: group.generationId,
    protocol: group.protocolName,
    leader: group.leaderId,
    currentStateTimestamp: BigInt(group.currentStateTimestamp ?? -1),
    members: [...group.members.values()].map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      rebalanceTimeout: m.rebalanceTimeoutMs,
      sessionTimeout: m.sessionTimeoutMs,
      subscription: group.metadataOf(m),
      assignment: assignments.get(m.memberId) ?? m.assignment,
    })),
  };
}

/** A group as loaded: Stable with its members and assignments, or Empty. */
export function groupFromMetadataValue<W>(groupId: string, value: GroupMetadataValueData): ClassicGroup<W> {
  const group = new ClassicGroup<W>(groupId, {
    state: value.members.length > 0 ? 'Stable' : 'Empty',
    generationId: value.generation,
    protocolType: value.protocolType === '' ? null : value.protocolType,
    protocolName: value.protocol,
    currentStateTimestamp: value.currentStateTimestamp === -1n ? null : Number(value.currentStateTimestamp),
  });
  for (const m of value.members) {
    const member: ClassicMember<W> = {
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      // Version 0 records have no rebalance timeout: the session timeout stood in for it.
      rebalanceTimeoutMs: m.rebalanceTimeout === -1 ? m.sessionTimeout : m.rebalanceTimeout,
      sessionTimeoutMs: m.sessionTimeout,
      protocolType: value.protocolType,
      protocols: [{ name: value.protocol ?? '', metadata: m.subscription }],
      assignment: m.assignment,
      awaitingJoin: null,
      awaitingSync: null,
      isNew: false,
    };
    group.add(member);
  }
  group.leaderId = value.leader;
  group.subscribedTopics = group.computeSubscribedTopics();
  return group;
}
