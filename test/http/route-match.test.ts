/** The route index answers exactly as the router's own match over the whole table. */
import Router from '@koa/router';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RouteIndex } from '../../src/http/route-match.js';
import { routesFor } from '../../src/http/routes.js';

const router = new Router();
for (const r of routesFor(true)) {
  if (r.method === 'GET') router.get(r.name, r.path, async () => {});
  else router.post(r.name, r.path, async () => {});
}
const index = RouteIndex.of(router);

/** What the front took from `router.match` before: the first route layer, else the path's. */
function byRouter(path: string, method: string) {
  const m = router.match(path, method);
  const layer = m.pathAndMethod.find((l) => l.methods.length > 0);
  return layer ? { layer: layer.name, onPath: [] } : { layer: undefined, onPath: m.path.filter((l) => l.methods.length > 0).map((l) => l.name) };
}
function byIndex(path: string, method: string) {
  const m = index.match(path, method);
  return { layer: m.layer?.name, onPath: m.onPath.map((l) => l.name) };
}

const concrete = routesFor(true).map((r) => r.path.replace(/:([A-Za-z_]+)/g, 'x'));
const paths = [
  ...concrete,
  ...concrete.map((p) => `${p}/`),
  ...concrete.map((p) => p.toUpperCase()),
  ...concrete.map((p) => p.toLowerCase()),
  ...concrete.map((p) => `/${p}`),
  ...concrete.map((p) => `${p}/extra`),
  ...concrete.map((p) => p.replace(/x/g, 'a%2Fb')),
  '/',
  '//',
  '///',
  '',
  '*',
  '/AGENTS.md//',
  '/AGENTS.md/world/',
  '/AGENTS.md/world//card',
  '/AGENTS.md/world/a/b/c',
  '/AGENTS%2Emd/api',
  '/agents.md/API',
  '/nope',
  '/nope/x',
  '/o',
  '/o/',
  '/o//book',
  '/play',
  '/play/',
  '/play//',
  '/static',
  '/static/',
  '/live',
  '/live/',
  '/xrpc',
  '/xrpc/',
  '/.well-known/did.json/',
  '/health//',
  // Unicode case folding: the Kelvin sign folds to k, the long s to s.
  '/\u212Ainds',
  '/kind\u017F',
  '/\u017Ftatic/x',
  '/AGENTS.md/\u017Fcratch/x/world',
  '/lib/\u00e9',
  '/\u00e9',
];

test('the same route, or the same 405/404 layers, as router.match for every path and method', () => {
  let n = 0;
  for (const path of paths) {
    for (const method of ['GET', 'HEAD', 'POST']) {
      assert.equal(byIndex(path, method), byRouter(path, method), `${method} ${path}`);
      n++;
    }
  }
  assert.ok(n > 500);
});

test('a route of the table is found through the index, not by luck of an empty answer', () => {
  assert.is(index.match('/AGENTS.md/world/lamp', 'GET').layer?.name, 'object');
  assert.is(index.match('/AGENTS.md/world/lamp/card', 'GET').layer?.name, 'card');
  assert.is(index.match('/AGENTS.md/world/lamp/open', 'POST').layer?.name, 'turn');
  assert.is(index.match('/AGENTS.md/scratch/lab/world/lamp', 'GET').layer?.name, 'scratch.object');
  assert.equal(
    index.match('/AGENTS.md/world/lamp', 'POST').onPath.map((l) => l.name),
    ['object'],
  );
});

test.run();
