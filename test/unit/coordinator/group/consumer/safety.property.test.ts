import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { CoordinatorRecord } from '../../../../../src/coordinator/group/records.js';
import { Client, FakeTopics, doubleOwned, newCoordinator, settle } from './harness.js';

/**
 * Random joins, leaves, heartbeats, partition growth and silences: protocol-following clients never
 * own a partition at the same time, and once everyone heartbeats the group covers every partition.
 */
test('no partition ever has two owners; a settled group covers every partition', () => {
  const op = fc.oneof(
    fc.record({ kind: fc.constant('join' as const), who: fc.nat(4) }),
    fc.record({ kind: fc.constant('leave' as const), who: fc.nat(4) }),
    fc.record({ kind: fc.constant('heartbeat' as const), who: fc.nat(4) }),
    fc.record({ kind: fc.constant('grow' as const), who: fc.nat(4) }),
  );
  fc.assert(
    fc.property(fc.array(op, { maxLength: 40 }), fc.constantFrom('uniform', 'range'), (ops, assignor) => {
      const topics = new FakeTopics();
      let partitions = 3;
      topics.add('t', partitions);
      const c = newCoordinator();
      const log: CoordinatorRecord[] = [];
      const clients = [0, 1, 2, 3, 4].map(
        (i) => new Client(c, topics, `m${i}`, log, { subscribedTopicNames: ['t'], serverAssignor: assignor }),
      );
      const inGroup = new Set<Client>();
      const check = () => assert.deepEqual(doubleOwned([...inGroup]), []);
      let now = 0;
      for (const o of ops) {
        now += 100;
        const cl = clients[o.who]!;
        if (o.kind === 'join' && !inGroup.has(cl)) {
          cl.join(now);
          inGroup.add(cl);
        } else if (o.kind === 'leave' && inGroup.has(cl)) {
          cl.leave(now);
          inGroup.delete(cl);
        } else if (o.kind === 'heartbeat' && inGroup.has(cl)) {
          cl.heartbeat(now);
        } else if (o.kind === 'grow') {
          topics.add('t', ++partitions);
        }
        check();
      }
      if (inGroup.size === 0) return;
      settle([...inGroup], now + 1, check);
      assert.equal(
        [...inGroup].reduce((n, cl) => n + cl.partitions().length, 0),
        partitions,
      );
    }),
    { numRuns: 150 },
  );
});
