/** The `simple` share assignor: coverage, sharing when members outnumber partitions, balance, stickiness. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { simpleAssign, type ShareAssignmentMember } from '../../../../../src/coordinator/group/share/simple-assignor.js';
import { type Assignment, EMPTY_ASSIGNMENT, assignmentOfPairs, pairsOf } from '../../../../../src/coordinator/group/consumer/assignment.js';

const partitions = (topicId: string, n: number): Array<[string, number]> => Array.from({ length: n }, (_, p) => [topicId, p]);
const member = (memberId: string, topicIds: string[], current: Assignment = EMPTY_ASSIGNMENT): ShareAssignmentMember => ({
  memberId,
  topicIds: new Set(topicIds),
  current,
});
const count = (a: Assignment | undefined): number => [...pairsOf(a ?? EMPTY_ASSIGNMENT)].length;
/** How many members hold each partition. */
function holders(result: Map<string, Assignment>): Map<string, number> {
  const out = new Map<string, number>();
  for (const a of result.values()) for (const [t, p] of pairsOf(a)) out.set(`${t}:${p}`, (out.get(`${t}:${p}`) ?? 0) + 1);
  return out;
}

describe('simple share assignor', () => {
  test('more partitions than members: each partition to exactly one member, counts differ by at most one', () => {
    const result = simpleAssign({
      members: ['a', 'b', 'c'].map((m) => member(m, ['T'])),
      assignable: assignmentOfPairs(partitions('T', 7)),
    });
    const h = holders(result);
    assert.equal(h.size, 7);
    assert.ok([...h.values()].every((n) => n === 1));
    const counts = [...result.values()].map(count);
    assert.equal(Math.max(...counts) - Math.min(...counts), 1);
    assert.equal(
      counts.reduce((x, y) => x + y),
      7,
    );
  });

  test('more members than partitions: partitions are shared by ceil(members / partitions), every member gets one', () => {
    const result = simpleAssign({
      members: ['a', 'b', 'c', 'd', 'e'].map((m) => member(m, ['T'])),
      assignable: assignmentOfPairs(partitions('T', 2)),
    });
    assert.deepEqual([...holders(result).values()].sort(), [3, 3]);
    assert.ok([...result.values()].every((a) => count(a) >= 1));
  });

  test('a single partition goes to every member', () => {
    const result = simpleAssign({
      members: ['a', 'b', 'c'].map((m) => member(m, ['T'])),
      assignable: assignmentOfPairs(partitions('T', 1)),
    });
    assert.deepEqual([...result.values()].map(count), [1, 1, 1]);
  });

  test('sticky: a member joining takes partitions from the others without moving the rest', () => {
    const a = assignmentOfPairs([
      ['T', 0],
      ['T', 1],
      ['T', 2],
    ]);
    const b = assignmentOfPairs([
      ['T', 3],
      ['T', 4],
      ['T', 5],
    ]);
    const result = simpleAssign({
      members: [member('a', ['T'], a), member('b', ['T'], b), member('c', ['T'])],
      assignable: assignmentOfPairs(partitions('T', 6)),
    });
    assert.deepEqual([...result.values()].map(count), [2, 2, 2]);
    for (const [t, p] of pairsOf(result.get('a')!)) assert.ok(a.get(t)?.has(p), 'a keeps only partitions it had');
    for (const [t, p] of pairsOf(result.get('b')!)) assert.ok(b.get(t)?.has(p), 'b keeps only partitions it had');
  });

  test('only assignable partitions of subscribed topics are handed out', () => {
    const result = simpleAssign({
      members: [member('a', ['T']), member('b', ['U'])],
      assignable: assignmentOfPairs([
        ['T', 0],
        ['U', 0],
        ['U', 1],
        ['V', 0],
      ]),
    });
    assert.deepEqual([...pairsOf(result.get('a')!)], [['T', 0]]);
    assert.deepEqual([...pairsOf(result.get('b')!)].sort(), [
      ['U', 0],
      ['U', 1],
    ]);
  });

  test('the same input gives the same assignment', () => {
    const spec = {
      members: ['x', 'y'].map((m) => member(m, ['T', 'U'])),
      assignable: assignmentOfPairs([...partitions('T', 3), ...partitions('U', 2)]),
    };
    assert.deepEqual(simpleAssign(spec), simpleAssign(spec));
  });

  test('nothing assignable or no members: empty assignments', () => {
    assert.deepEqual([...simpleAssign({ members: [member('a', ['T'])], assignable: new Map() }).values()].map(count), [0]);
    assert.equal(simpleAssign({ members: [], assignable: assignmentOfPairs(partitions('T', 2)) }).size, 0);
  });
});
