import { test } from 'node:test';
import assert from 'node:assert/strict';
import { API_TABLE } from '../src/messages/api-table.js';
import { API_MESSAGES } from '../src/messages/index.js';

test('the codec-free API table gives every API the versions and flexible versions of its codecs', () => {
  assert.deepEqual(
    API_TABLE,
    API_MESSAGES.map((a) => ({
      apiKey: a.apiKey,
      name: a.name,
      requestVersions: a.request.validVersions,
      firstFlexibleRequest: a.request.firstFlexibleVersion,
      firstFlexibleResponse: a.response.firstFlexibleVersion,
      latestVersionUnstable: a.latestVersionUnstable,
    })),
  );
});
