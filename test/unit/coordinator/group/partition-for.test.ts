import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { javaStringHashCode, partitionFor } from '../../../../src/coordinator/group/partition-for.js';

test('Java String.hashCode on known values', () => {
  assert.equal(javaStringHashCode(''), 0);
  assert.equal(javaStringHashCode('hello'), 99162322);
  assert.equal(javaStringHashCode('Aa'), javaStringHashCode('BB'));
  // The famous string whose hash is Integer.MIN_VALUE: Kafka's abs maps it to 0.
  assert.equal(javaStringHashCode('polygenelubricants'), -2147483648);
  assert.equal(partitionFor('polygenelubricants', 50), 0);
});

test('hashCode matches s[0]*31^(n-1) + … + s[n-1] modulo 2^32, as a signed int', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary' }), (s) => {
      let h = 0n;
      for (let i = 0; i < s.length; i++) h = (h * 31n + BigInt(s.charCodeAt(i))) & 0xffffffffn;
      assert.equal(javaStringHashCode(s), Number(BigInt.asIntN(32, h)));
      const p = partitionFor(s, 50);
      assert.ok(p >= 0 && p < 50);
    }),
  );
});
