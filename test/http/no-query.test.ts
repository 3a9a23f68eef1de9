/**
 * A request with no query gets its route's codec's answer to `{}`, decoded once and shared
 * (src/http/front/decode.ts): the same value a fresh decode gives, frozen; a codec that refuses an
 * empty query refuses it every time; a query that is there is decoded as before.
 */
import * as t from 'io-ts';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TownError } from '../../src/contract/town-error.js';
import { decodeQuery } from '../../src/http/front/decode.js';
import type { TownContext } from '../../src/http/handler.js';
import type { Route } from '../../src/http/routes.js';

const ctx = (querystring: string, query: Record<string, string> = {}) => ({ querystring, query }) as unknown as TownContext;
const route = (query?: t.Type<any, any, unknown>) => ({ name: 'r', query }) as unknown as Route;

test('no query: the codec’s answer to {}, the same frozen value each time', () => {
  const r = route(t.partial({ compact: t.string, full: t.string }));
  const a = decodeQuery(ctx(''), r);
  const b = decodeQuery(ctx(''), r);
  assert.equal(a, {});
  assert.is(a, b, 'shared');
  assert.ok(Object.isFrozen(a), 'frozen: no request can change what the next one gets');
  assert.equal(decodeQuery(ctx('full=1', { full: '1' }), r), { full: '1' }, 'a query that is there is decoded');
  assert.equal(decodeQuery(ctx(''), route()), {}, 'a route without a codec');
});

test('a codec that refuses an empty query refuses it every time', () => {
  const r = route(t.type({ intent: t.string }));
  for (let i = 0; i < 2; i++) {
    try {
      decodeQuery(ctx(''), r);
      assert.unreachable('refused');
    } catch (e) {
      assert.instance(e, TownError);
      assert.is((e as TownError).cls, 'hostRequest');
    }
  }
});

test.run();
