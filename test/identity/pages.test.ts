/** The guest door's pages: escaping, forms, and the in-page SHA-256 against node:crypto. */
import { createHash, randomBytes } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { issueChallenge } from '../../src/commands/challenge.js';
import { identityOf } from '../../src/contract/names.js';
import { enterPage, keyPage, leavePage } from '../../src/pages/door-page.js';
import { arrivalFormScript, sha256ZeroBitsSource } from '../../src/identity/proof-script.js';
import { leadingZeroBits } from '../../src/commands/arrival.js';

const zeroBits = new Function(`${sha256ZeroBitsSource}; return zeroBits;`)() as (text: string) => number;

test('the page script counts the same zero bits as node:crypto, at every padding boundary', () => {
  for (let length = 0; length <= 200; length++) {
    for (let trial = 0; trial < 3; trial++) {
      const text = randomBytes(length).toString('base64url').slice(0, length);
      assert.is(zeroBits(text), leadingZeroBits(createHash('sha256').update(text).digest()), `length ${length}`);
    }
  }
  // Texts with many leading zero bits: the count must run across the first word.
  const challenge = issueChallenge(randomBytes(32), 0, 1, 0).challenge;
  let found = 0;
  for (let n = 0; found < 3; n++) {
    const text = `${challenge}:ada:${n.toString(36)}`;
    const bits = leadingZeroBits(createHash('sha256').update(text).digest());
    if (bits >= 12) {
      found++;
      assert.is(zeroBits(text), bits);
    }
  }
});

test('the page script is valid JavaScript', () => {
  assert.not.throws(() => new Function(arrivalFormScript));
});

test('the enter page: invitation and key forms; the arrival form only on an open town, challenge filled in', () => {
  const invited = enterPage();
  assert.match(invited, /name="code"/);
  assert.match(invited, /name="credential"/);
  assert.not.match(invited, /name="challenge"/);
  assert.not.match(invited, /<script>/);
  const challenge = issueChallenge(randomBytes(32), Date.UTC(2026, 0, 1), 600_000, 18);
  const open = enterPage({ challenge });
  assert.match(open, new RegExp(`name="challenge" value="${challenge.challenge.replace(/[.]/g, '\\.')}"`));
  assert.match(open, /name="nonce"/);
  assert.match(open, /data-bits="18"/);
  // The proof runs from the town's own script file: the policy allows no inline script.
  assert.match(open, /<script src="\/static\/arrive\.js" defer><\/script>/);
  assert.not.match(open, /<script>/);
});

test('everything written into a page is escaped', () => {
  const evil = '<script>alert(1)</script>"\'&';
  const page = enterPage({ error: { message: evil, hint: evil }, values: { code: evil, name: evil } });
  assert.not.match(page, /<script>alert/);
  assert.match(page, /&lt;script&gt;alert\(1\)&lt;\/script&gt;&quot;&#39;&amp;/);
  assert.not.match(leavePage({ handle: evil, name: 'ada' }), /<script>alert/);
  assert.not.match(keyPage({ ...identityOf('h', 'ada'), handle: evil }, evil), /<script>alert/);
});

test('the key page shows the key; the leave page has one sign-out button', () => {
  assert.match(keyPage(identityOf('town.test', 'ada'), 'svc_key_abc'), /svc_key_abc/);
  const leave = leavePage({ handle: 'ada.town.test', name: 'ada' });
  assert.is(leave.match(/<button/g)?.length, 1);
  assert.match(leave, /method="post" action="\/leave"/);
  // Signed out, it says so and offers the door again, not a button that does nothing.
  const left = leavePage(undefined);
  assert.not.match(left, /<button/);
  assert.match(left, /Signed out/);
  assert.match(left, /href="\/enter"/);
});

test.run();
