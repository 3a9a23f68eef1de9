/**
 * The documents the catalogue cites are served (GET /AGENTS.md/docs/{name}, text/markdown): every
 * path to a document in the catalogue, the guide and llms.txt resolves, and nothing else of the
 * project's docs/ directory is served.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestTown, type TestTown } from '../world/support.js';

let t: TestTown;

test.before(async () => {
  t = await startTestTown();
});
test.after(async () => {
  await t.close();
});

const text = async (p: string) => (await fetch(`${t.base}${p}`, { headers: { accept: 'text/plain' } })).text();

test('every document the catalogue, the guide and llms.txt cite resolves, as Markdown', async () => {
  const catalogue = JSON.stringify((await t.request('GET', '/AGENTS.md/api')).json);
  const cited = new Set<string>();
  for (const served of [catalogue, await text('/AGENTS.md'), await text('/llms.txt')]) {
    // A bare `docs/<name>.md` would be a path the town does not serve.
    for (const m of served.matchAll(/(\/AGENTS\.md\/)?docs\/[A-Za-z0-9._-]+\.md/g)) {
      assert.ok(m[1], `cited as a served path: ${m[0]}`);
      cited.add(m[0]);
    }
  }
  assert.ok(cited.has('/AGENTS.md/docs/service-auth.md'));
  assert.ok(cited.has('/AGENTS.md/docs/hosted-records.md'));
  for (const p of cited) {
    const r = await fetch(`${t.base}${p}`);
    assert.is(r.status, 200, p);
    assert.match(String(r.headers.get('content-type')), 'text/markdown');
    assert.match(await r.text(), /^# /, `${p} is a Markdown document`);
  }
  const route = (await t.request('GET', '/AGENTS.md/api')).json.routes.find((r: { name: string }) => r.name === 'doc');
  assert.equal({ method: route.method, href: route.href, auth: route.auth }, { method: 'GET', href: '/AGENTS.md/docs/{name}', auth: 'none' });
});

test('only the documents for agents: another file of docs/, or a path out of it, is 404', async () => {
  for (const name of ['decisions.md', '..%2Fpackage.json', 'nothing.md', '%2E%2E%2FREADME.md']) {
    const r = await t.request('GET', `/AGENTS.md/docs/${name}`);
    assert.is(r.status, 404, name);
    assert.is(r.json.class, 'unknownRoute', name);
  }
});

test.run();
