/**
 * A prepared reply (front/reply.ts preparedReply) is sent as exactly the bytes jsonReply makes of
 * the same object unprepared, whatever its fields, links and self href; a reply whose own links
 * name `self` or `api` is not prepared.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { jsonReply, preparedReply } from '../../src/http/front/reply.js';
import { replyLinks, type Links } from '../../src/contract/links.js';
import type { TownContext } from '../../src/http/handler.js';

const prepared = suite('prepared replies');

function sent(out: Record<string, unknown>, self: string): { body: unknown; type: string | undefined } {
  const headers: Record<string, string> = {};
  const ctx = {
    originalUrl: self,
    body: undefined as unknown,
    response: {
      type: '',
      remove: (name: string) => delete headers[name],
      set: (name: string, value: string) => (headers[name] = value),
    },
  };
  jsonReply(ctx as unknown as TownContext, out);
  return { body: ctx.body, type: headers['Content-Type'] };
}

const cases: Record<string, unknown>[] = [
  {
    id: 'lamp',
    kind: 'lamp',
    state: { tag: 'record', fields: [{ name: 'oil', value: { tag: 'natural', value: 3 } }] },
    version: 4,
    _actions: { fill: 'fill measures=<natural 0..9>' },
    _links: { card: { href: '/AGENTS.md/world/lamp/card' }, source: { href: '/AGENTS.md/world/lamp/source' } },
  },
  { id: 'a/b', text: 'quote " and \\ and \u2028 and \ud83d\udd6f', _links: {} },
  { only: 1 },
  {},
  { missing: undefined, list: [1, 'two', null], _links: { doors: [{ href: '/x', name: 'x' }] } },
];

prepared('the same bytes as the object sent unprepared', () => {
  for (const [i, out] of cases.entries()) {
    for (const self of ['/AGENTS.md/world/lamp', '/AGENTS.md/world/a%2Fb?x="q"&y=\u00e9', '']) {
      const plain = sent(structuredClone(out), self);
      const copy = preparedReply(structuredClone(out));
      assert.ok(Object.isFrozen(copy), `case ${i} is frozen once prepared`);
      const fast = sent(copy, self);
      assert.is(fast.body, plain.body, `case ${i}, self ${self}`);
      assert.is(fast.type, plain.type);
      // Sent twice, it is the same again.
      assert.is(sent(copy, self).body, plain.body);
    }
  }
});

prepared('own self or api links are left to the plain path', () => {
  const out = { id: 'x', _links: { self: { href: '/elsewhere' } } };
  const same = preparedReply(out);
  assert.not.ok(Object.isFrozen(same), 'not prepared');
  assert.is(JSON.parse(sent(same, '/AGENTS.md/x').body as string)._links.self.href, '/elsewhere');
});

// A plain object with links of its own (a turn's reply) is serialised with its links spliced in
// (front/reply.ts withLinksSpliced): the same bytes as serialising the copy with the front's links.
prepared('links spliced in: the same bytes as the copy, the object left as it was', () => {
  const withLinks: Record<string, unknown>[] = [
    { status: 'done', line: 'ann pours', offers: [], receipt: { slug: 'a-b-c', height: 2 }, _links: { receipt: { href: '/r' }, card: { href: '/c' } } },
    { _links: { card: { href: '/c' } } },
    { a: 1, _links: {} },
    { _links: {}, after: 'links first', gone: undefined },
    { a: undefined, b: [undefined, 1], _links: { doors: [{ href: '/x', name: 'x' }] }, c: 'é \u2028' },
    Object.assign(Object.create(null), { n: 1, _links: { k: { href: '/k' } } }),
    { frozen: true, _links: { k: { href: '/k' } } },
  ];
  Object.freeze(withLinks[withLinks.length - 1]);
  for (const [i, out] of withLinks.entries()) {
    for (const self of ['/AGENTS.md/world/lamp/fill', '/x?y="z"']) {
      const before = JSON.stringify(out);
      const { _links, ...rest } = out as { _links?: Links };
      const expected = JSON.stringify({ ...rest, _links: replyLinks(self, _links) });
      assert.is(sent(out, self).body, expected, `case ${i}, self ${self}`);
      assert.is(JSON.stringify(out), before, `case ${i} is left as it was`);
      assert.ok('_links' in out);
    }
  }
});

prepared.run();
