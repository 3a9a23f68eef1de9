/**
 * The binding of handlers to routes is checked by the compiler: each `@ts-expect-error` below
 * must find an error, or `npm run build` (and so `npm test`) fails. The runtime half checks what
 * the front does with a table that states a route as not built.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { HandlerTable, RoomHandlers, RouteHandler } from '../../src/http/route-types.js';
import { notBuilt, unbuilt } from '../../src/http/route-types.js';
import { startTown } from './helpers.js';

test('a misspelt handler key, a wrong body type or a missing route does not compile', () => {
  const pending: RouteHandler<'pending'> = async () => ({ sends: [] });
  const room: RoomHandlers<'pending'> = {
    pending,
    // @ts-expect-error: no route is named `pendng`
    pendng: pending,
  };
  const turn: RouteHandler<'turn'> = async (ctx) => {
    // The body is the codec's type: `intent` is a string, and there is no `intnet`.
    const intent: string = ctx.state.body.intent;
    // @ts-expect-error: the turn body has no field `intnet`
    const misspelt = ctx.state.body.intnet;
    // The caller of a bearer route is always there; the path names `object` and `method`.
    return { intent, misspelt, principal: ctx.state.caller.principal, object: ctx.params.object, method: ctx.params.method };
  };
  // @ts-expect-error: a table must bind or state every route (`turn` is bound here, nothing else)
  const table: HandlerTable = { turn };
  // @ts-expect-error: `unbuilt` takes only names of the table
  unbuilt('scrach');
  assert.ok(room && table);
});

test('a route stated as not built answers 501 naming it, and the catalogue says built: false', async () => {
  const town = await startTown({ handlers: { ...unbuilt('feed'), me: async (ctx) => ({ principal: ctx.state.caller.principal }) } });
  try {
    const res = await fetch(`${town.base}/AGENTS.md/feed`, { headers: { Authorization: 'Bearer ada-credential' } });
    assert.is(res.status, 501);
    const body = (await res.json()) as { class: string; message: string };
    assert.is(body.class, 'notImplemented');
    assert.match(body.message, /feed/);
    const api = (await (await fetch(`${town.base}/AGENTS.md/api`)).json()) as { routes: { name: string; built?: false }[] };
    assert.is(api.routes.find((r) => r.name === 'feed')?.built, false);
    assert.is(api.routes.find((r) => r.name === 'me')?.built, undefined);
    assert.is(notBuilt.toString(), 'Symbol(not built)');
  } finally {
    await town.close();
  }
});

test.run();
