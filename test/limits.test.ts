import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { limits, limitTable } from '../src/contract/limits.js';

test('section 8 values are the spec values', () => {
  assert.is(limits.bodyBytes, 262144);
  assert.is(limits.bodyDepth, 256);
  assert.equal(limits.ratePerCredential, [32, 60]);
  assert.ok(limitTable.find((l) => l.name === 'workers' && l.value === 48));
});

test.run();
