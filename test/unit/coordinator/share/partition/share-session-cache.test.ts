import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { KafkaError } from '@sluice/protocol/common/kafka-error.js';
import { ErrorCode } from '@sluice/protocol/errors.js';
import { FINAL_SHARE_EPOCH, ShareSessionCache } from '../../../../../src/coordinator/share/partition/share-session-cache.js';

const T = 'AAAAAAAAAAAAAAAAAAAAAQ';
const M1 = { groupId: 'g', memberId: 'm1' };
const M2 = { groupId: 'g', memberId: 'm2' };
const p = (partition: number) => ({ topicId: T, partition });

function refusedWith(code: number): (err: unknown) => boolean {
  return (err) => err instanceof KafkaError && err.code === code;
}

describe('ShareSessionCache', () => {
  test('epoch 0 opens a session, each later request names the next epoch and adds or forgets partitions', () => {
    const cache = new ShareSessionCache(10);
    const conn = {};
    assert.deepEqual(cache.forFetch(M1, 0, conn, [p(0), p(1)], [], false), { partitions: [p(0), p(1)], final: false });
    assert.deepEqual(cache.forFetch(M1, 1, conn, [p(2)], [p(0)], true).partitions, [p(1), p(2)]);
    assert.deepEqual(
      cache.forFetch(M1, 2, conn, [], [], false).partitions,
      [p(1), p(2)],
      'an incremental request fetches the whole session',
    );
    assert.deepEqual(cache.forAcknowledge(M1, 3), { partitions: [p(1), p(2)], final: false });
    assert.equal(cache.forFetch(M1, 4, conn, [], [], false).final, false);
  });

  test('a wrong epoch is INVALID_SHARE_SESSION_EPOCH and a missing session SHARE_SESSION_NOT_FOUND', () => {
    const cache = new ShareSessionCache(10);
    assert.throws(() => cache.forFetch(M1, 1, {}, [], [], false), refusedWith(ErrorCode.SHARE_SESSION_NOT_FOUND));
    assert.throws(() => cache.forAcknowledge(M1, FINAL_SHARE_EPOCH), refusedWith(ErrorCode.SHARE_SESSION_NOT_FOUND));
    assert.throws(() => cache.forFetch(M1, FINAL_SHARE_EPOCH, {}, [], [], false), refusedWith(ErrorCode.SHARE_SESSION_NOT_FOUND));
    cache.forFetch(M1, 0, {}, [p(0)], [], false);
    assert.throws(() => cache.forFetch(M1, 2, {}, [], [], false), refusedWith(ErrorCode.INVALID_SHARE_SESSION_EPOCH));
    assert.throws(() => cache.forAcknowledge(M1, 5), refusedWith(ErrorCode.INVALID_SHARE_SESSION_EPOCH));
    assert.equal(cache.forFetch(M1, 1, {}, [], [], false).final, false, 'a refused epoch does not move the session on');
  });

  test('an opening ShareFetch carries no acknowledgements, and ShareAcknowledge never opens a session', () => {
    const cache = new ShareSessionCache(10);
    assert.throws(() => cache.forFetch(M1, 0, {}, [p(0)], [], true), refusedWith(ErrorCode.INVALID_REQUEST));
    assert.throws(() => cache.forAcknowledge(M1, 0), refusedWith(ErrorCode.INVALID_SHARE_SESSION_EPOCH));
    assert.equal(cache.size, 0);
  });

  test("epoch 0 replaces the member's session; epoch -1 marks the request final", () => {
    const cache = new ShareSessionCache(10);
    cache.forFetch(M1, 0, {}, [p(0)], [], false);
    cache.forFetch(M1, 1, {}, [], [], false);
    assert.deepEqual(cache.forFetch(M1, 0, {}, [p(3)], [], false).partitions, [p(3)]);
    assert.equal(cache.size, 1);
    assert.deepEqual(cache.forFetch(M1, FINAL_SHARE_EPOCH, {}, [], [], false), { partitions: [], final: true });
    assert.deepEqual(cache.forAcknowledge(M1, FINAL_SHARE_EPOCH), { partitions: [], final: true });
    assert.equal(cache.remove(M1), true);
    assert.equal(cache.remove(M1), false);
  });

  test('group.share.max.share.sessions bounds the sessions: SHARE_SESSION_LIMIT_REACHED', () => {
    const cache = new ShareSessionCache(1);
    cache.forFetch(M1, 0, {}, [], [], false);
    assert.throws(() => cache.forFetch(M2, 0, {}, [], [], false), refusedWith(ErrorCode.SHARE_SESSION_LIMIT_REACHED));
    assert.doesNotThrow(() => cache.forFetch(M1, 0, {}, [], [], false), "a member's own new session replaces its old one");
  });

  test('a closed connection ends the sessions it opened', () => {
    const cache = new ShareSessionCache(10);
    const a = {};
    cache.forFetch(M1, 0, a, [], [], false);
    cache.forFetch(M2, 0, {}, [], [], false);
    assert.deepEqual(cache.connectionClosed(a), [M1]);
    assert.equal(cache.size, 1);
    assert.deepEqual(cache.connectionClosed(a), []);
  });
});
