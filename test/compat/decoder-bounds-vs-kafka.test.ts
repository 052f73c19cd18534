/**
 * Sluice and Apache Kafka (the pinned release, one KRaft node started here) sent the same
 * requests at and just over the decoder caps (array elements, tagged fields, compact string
 * bytes) over raw sockets: each must meet the same fate, an answer at a cap and a closed
 * connection one over, and both must serve the next connection.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeRequest } from '@sluice/protocol/envelope.js';
import { ApiVersionsRequest } from '@sluice/protocol/messages/index.js';
import { KAFKA_VERSION } from '../../tools/kafka/kafka-release.js';
import { BOUND_FRAMES } from '../helpers/bound-frames.js';
import { javaSkip } from '../helpers/requirements.js';
import { sideBySide } from '../helpers/side-by-side.js';
import { requestFate } from '../helpers/wire-client.js';

const apiVersions = encodeRequest(18, 3, 2, 'compat', (w) =>
  ApiVersionsRequest.write(w, { clientSoftwareName: 'sluice-compat', clientSoftwareVersion: '1' }, 3),
);

describe(`decoder caps, Sluice against Apache Kafka ${KAFKA_VERSION}`, { skip: javaSkip() }, () => {
  const brokers = sideBySide();

  for (const c of BOUND_FRAMES) {
    test(`${c.name}: the same fate from both (${c.overLimit ? 'closed' : 'answered'})`, async () => {
      const frame = c.frame();
      const [ours, theirs] = await Promise.all([
        requestFate(brokers().sluice.bootstrap, frame),
        requestFate(brokers().kafka.bootstrap, frame),
      ]);
      assert.equal(theirs, c.overLimit ? 'closed' : 'answered', 'Kafka did not do what this test expects of it');
      assert.equal(ours, theirs);
      const next = await Promise.all([
        requestFate(brokers().sluice.bootstrap, apiVersions),
        requestFate(brokers().kafka.bootstrap, apiVersions),
      ]);
      assert.deepEqual(next, ['answered', 'answered'], 'both serve the next connection');
    });
  }
});
