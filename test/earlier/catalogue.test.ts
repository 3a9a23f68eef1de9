/**
 * Spec 9 on the catalogue: a town serving the earlier shape describes it in /AGENTS.md/api (routes
 * from the same table, its limits, errors, refusals and repository errors), in the guide and in
 * the examples; its MCP tools are its routes.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestTown } from '../world/support.js';
import { startEarlierTown } from './support.js';

let t: TestTown;
let c: any;

test.before(async () => {
  t = await startEarlierTown();
  c = (await t.request('GET', '/AGENTS.md/api')).json;
});
test.after(async () => {
  await t.close();
});

test('routes: the earlier ones, with their heap paths; none of the current shape\u2019s own', () => {
  const names = new Set<string>(c.routes.map((r: any) => r.name));
  for (const n of [
    'challenge',
    'challengePost',
    'verify',
    'replEarlier',
    'checkEarlier',
    'heapObjects',
    'receiptEarlier',
    'world',
    'turn',
    'me',
    'revoke',
    'cardPageQuery',
  ])
    assert.ok(names.has(n), n);
  for (const n of [
    'accept',
    'arrive',
    'arriveChallenge',
    'scratch',
    'repl',
    'check',
    'cite',
    'feed',
    'feedPost',
    'live',
    'liveObject',
    'history',
    'map',
    'town',
    'kinds',
    'library',
    'xrpcProcedure',
    'receipt',
    'receiptByIntent',
  ])
    assert.not.ok(names.has(n), n);
  const by = (n: string) => c.routes.find((r: any) => r.name === n);
  assert.is(by('receiptEarlier').href, '/AGENTS.md/receipt/{intent}');
  assert.is(by('receiptEarlier').heap, '/AGENTS.md/heap/receipt/{intent}');
  assert.is(by('turn').heap, '/AGENTS.md/heap/world/{object}/{method}');
  assert.equal(Object.keys(by('turn').body).sort(), ['argument?', 'fields?', 'intent', 'spell?']);
  assert.equal(Object.keys(by('replEarlier').body).sort(), [
    'arguments?',
    'checkpoint?',
    'entry?',
    'intent?',
    'limits?',
    'modules?',
    'object?',
    'response?',
    'roots?',
    'source?',
  ]);
  assert.equal(Object.keys(by('checkEarlier').body).sort(), ['entry?', 'modules?', 'source?']);
  assert.equal(Object.keys(by('challenge').body), ['handle']);
  assert.equal(Object.keys(by('verify').body).sort(), ['handle', 'uri']);
  for (const r of c.routes) assert.is(r.built, undefined, `${r.name} is built`);
  assert.is(c.shape, 'earlier');
});

test('limits, errors, refusals and repository errors of the earlier shape', () => {
  assert.is(c.limits.bodyBytes.value, 65536);
  assert.is(c.limits.moduleBytes.value, 16384);
  assert.is(c.limits.modules.value, 16);
  assert.equal(c.limits.ratePerCredential.value, [32, 60]);
  assert.equal(c.limits.ratePerAddressOnChallengeAndVerify.value, [16, 60]);
  for (const gone of ['hostedWriteBodyBytes', 'workers', 'ratePerAddressOnPagesWithoutLogin']) assert.is(c.limits[gone], undefined, gone);
  assert.equal(c.errors.badModules, { http: 400, status: 'error', when: '`modules` is not a list of at most 16 objects' });
  assert.match(c.errors.bodyTooLarge.when, /65536/);
  assert.match(c.errors.moduleTooLarge.when, /16384/);
  for (const gone of ['moved', 'cardRefused', 'quiet']) assert.is(c.refusals[gone], undefined, gone);
  assert.equal(c.refusals.badSpell.clauses, ['otherCard', 'noAction', 'unknownField', 'duplicateField', 'badValue', 'unclosedBlock', 'unclear']);
  for (const gone of ['AuthRequired', 'InvalidSwap', 'RecordAlreadyExists', 'RepoFull', 'UpgradeRequired']) assert.is(c.xrpcErrors[gone], undefined, gone);
  assert.ok(c.xrpcErrors.RecordNotFound);
  assert.is(c.arrival, undefined);
  assert.match(c.identity.verify, /15 minutes/);
});

test('the guide and the examples describe the earlier shape', async () => {
  const guide = await (await fetch(`${t.base}/AGENTS.md`, { headers: { Accept: 'text/plain' } })).text();
  assert.match(guide, /earlier catalogue shape/);
  assert.match(guide, /POST \/AGENTS\.md\/challenge/);
  assert.not.match(guide, /accept/);
  const json = await (await fetch(`${t.base}/AGENTS.md`, { headers: { Accept: 'application/json' } })).json();
  assert.is(json.shape, 'earlier', 'the catalogue, asked for as JSON');
  const examples = await t.request('GET', '/AGENTS.md/examples');
  assert.match(examples.text, /POST \/AGENTS\.md\/verify/);
  assert.not.match(examples.text, /\/AGENTS\.md\/accept/);
});

test('a repository error the earlier set lacks is answered as the nearest it has', async () => {
  const r = await t.request('GET', '/xrpc/com.atproto.sync.subscribeRepos');
  assert.is.not(r.json.error, 'UpgradeRequired', r.text);
  assert.is(r.json.error, 'MethodNotImplemented', r.text);
  assert.is(r.status, 501);
});

test('the MCP tools are the earlier routes', () => {
  const tools = new Set(t.town.mcp.town.toolList.map((x: { name: string }) => x.name));
  for (const n of ['replEarlier', 'checkEarlier', 'heapObjects', 'receiptEarlier', 'turn']) assert.ok(tools.has(n), n);
  for (const n of ['scratch', 'repl', 'cite', 'feed', 'receipt', 'receiptByIntent']) assert.not.ok(tools.has(n), n);
});

test('the MCP prompt carries the earlier guide, not the current one', () => {
  const prompt = t.town.mcp.town.prompt();
  assert.match(prompt, /\/AGENTS\.md\/heap/);
  assert.not.match(prompt, /\/AGENTS\.md\/scratch/);
  assert.not.match(prompt, /\/AGENTS\.md\/feed/);
});

test.run();
