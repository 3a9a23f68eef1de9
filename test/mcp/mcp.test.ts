/**
 * The town as an MCP server, driven by the SDK's own Client and StreamableHTTPClientTransport:
 * connecting (and being refused without a credential), the tools (a turn, its repeat, a refusal,
 * an unknown card, bad input, the same intent over HTTP), resources (listing, reading, visibility,
 * subscriptions told of moves), the prompt, and the session's end (DELETE, revocation).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { startTestTown, request, type Guest, type TestTown } from '../world/support.js';
import { connect, eventually, mcpTransport, rejects, shown } from './support.js';

const mcp = suite<{ t: TestTown; ann: Guest; bob: Guest }>('mcp');

mcp.before(async (ctx) => {
  ctx.t = await startTestTown();
  ctx.ann = await ctx.t.guest('ann');
  ctx.bob = await ctx.t.guest('bob');
  await shown(ctx.t, ctx.ann.token, 'lamp');
});
mcp.after(async (ctx) => {
  await ctx.t.close();
});

let n = 0;
const intent = () => `mcp-intent-${++n}`;

mcp('connects, names the town and lists the agent routes as tools', async ({ t, ann }) => {
  const c = await connect(t, ann.token);
  try {
    assert.is(c.client.getServerVersion()?.name, 'town');
    assert.ok(c.transport.sessionId, 'a session');
    assert.ok(c.client.getServerCapabilities()?.resources?.subscribe);
    assert.match(c.client.getInstructions() ?? '', 'refusal is a receipt');
    const { tools } = await c.client.listTools();
    const names = tools.map((x) => x.name);
    for (const name of ['world', 'object', 'card', 'source', 'turn', 'receipt', 'receiptByIntent', 'offers', 'pending', 'deliver', 'me', 'feed', 'feedPost']) {
      assert.ok(names.includes(name), `tool ${name}`);
    }
    for (const name of ['scratch', 'scratchObjects', 'repl', 'check', 'cite']) assert.ok(names.includes(name), `scratch is built: tool ${name}`);
    const turn = tools.find((x) => x.name === 'turn')!;
    assert.equal(turn.inputSchema.required, ['object', 'method', 'intent']);
    assert.ok('scratch' in (turn.inputSchema.properties ?? {}), 'a world route takes `scratch`');
    assert.ok(turn.annotations?.idempotentHint, 'a turn named by its intent is idempotent');
  } finally {
    await c.close();
  }
});

mcp('a turn through a tool: the HTTP reply as structure and text; the same intent again is the same receipt', async ({ t, ann }) => {
  const c = await connect(t, ann.token);
  try {
    const i = intent();
    const first = await c.client.callTool({ name: 'turn', arguments: { object: 'lamp', method: 'fill', intent: i, fields: { measures: 0 } } });
    assert.not.ok(first.isError, JSON.stringify(first));
    const reply = first.structuredContent as any;
    assert.is(reply.status, 'done');
    assert.type(reply.receipt.slug, 'string');
    assert.equal(JSON.parse((first.content as any)[0].text), reply, 'the text is the same JSON');
    assert.is(reply._links.self.href, '/AGENTS.md/world/lamp/fill', 'self is the route the tool stands for');
    const again = await c.client.callTool({ name: 'turn', arguments: { object: 'lamp', method: 'fill', intent: i, fields: { measures: 0 } } });
    assert.equal((again.structuredContent as any).receipt, reply.receipt, 'a repeat answers the first receipt');
    // The same intent over HTTP is the same turn.
    const http = await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: i, fields: { measures: 0 } });
    assert.is(http.status, 200);
    assert.equal(http.json.receipt, reply.receipt);
    // And an HTTP turn's intent through the tool.
    const j = intent();
    const viaHttp = await t.post('/AGENTS.md/world/lamp/fill', ann.token, { intent: j, fields: { measures: 0 } });
    const viaMcp = await c.client.callTool({ name: 'receiptByIntent', arguments: { intent: j } });
    assert.not.ok(viaMcp.isError, JSON.stringify(viaMcp));
    assert.is((viaMcp.structuredContent as any).slug ?? (viaMcp.structuredContent as any).receipt?.slug, viaHttp.json.receipt.slug);
  } finally {
    await c.close();
  }
});

mcp('a scratch world through tools: open it, make a card, cast on it there, as over HTTP', async ({ t, bob }) => {
  const c = await connect(t, bob.token);
  try {
    const opened = await c.client.callTool({ name: 'scratch', arguments: { name: 'lab', from: { world: 'town' } } });
    assert.not.ok(opened.isError, JSON.stringify(opened.structuredContent));
    const made = await c.client.callTool({
      name: 'scratchObjects',
      arguments: {
        name: 'lab',
        object: 'counter',
        source:
          'type Counter:\n  n: Natural\n\ndef initial() -> Counter:\n  return Counter { n: 0 }\n\nspell bump(self: Counter, by: Natural 1..9) -> Counter:\n  return self { n: self.n + by }\n',
        entry: 'initial',
        intent: 'mcp-make-counter',
      },
    });
    assert.not.ok(made.isError, JSON.stringify(made.structuredContent));
    const bumped = await c.client.callTool({
      name: 'turn',
      arguments: { scratch: 'lab', object: 'counter', method: 'bump', intent: 'mcp-bump-1', fields: { by: 3 } },
    });
    const j = bumped.structuredContent as any;
    assert.is(j.status, 'done', JSON.stringify(j));
    assert.is(j._links.self.href, '/AGENTS.md/scratch/lab/world/counter/bump');
    const again = await t.post('/AGENTS.md/scratch/lab/world/counter/bump', bob.token, { intent: 'mcp-bump-1', fields: { by: 3 } });
    assert.equal(again.json.receipt, j.receipt, 'the same intent over HTTP in the same scratch world is the same turn');
    const inTown = await c.client.callTool({ name: 'object', arguments: { object: 'counter' } });
    assert.is((inTown.structuredContent as any).class, 'unknown', 'nothing done there reaches the town');
    // Closing it is a tool too: the world stops answering at once, over HTTP as well.
    const closed = await c.client.callTool({ name: 'scratchClose', arguments: { name: 'lab' } });
    assert.not.ok(closed.isError, JSON.stringify(closed.structuredContent));
    assert.equal([(closed.structuredContent as any).status, (closed.structuredContent as any).world], ['closed', 'scratch/lab']);
    assert.is((await t.get('/AGENTS.md/scratch/lab/world', bob.token)).status, 404);
    const twice = await c.client.callTool({ name: 'scratchClose', arguments: { name: 'lab' } });
    assert.ok(twice.isError);
    assert.is((twice.structuredContent as any).class, 'unknown');
  } finally {
    await c.close();
  }
});

mcp('a read through a tool is byte for byte the HTTP reply', async ({ t, ann }) => {
  const c = await connect(t, ann.token);
  try {
    const r = await c.client.callTool({ name: 'object', arguments: { object: 'lamp' } });
    const http = await t.get('/AGENTS.md/world/lamp', ann.token);
    assert.is((r.content as any)[0].text, http.text);
    assert.ok((r.structuredContent as any)._actions, '_actions');
  } finally {
    await c.close();
  }
});

mcp('a refusal is a normal result carrying its receipt', async ({ t, ann }) => {
  const c = await connect(t, ann.token);
  try {
    const r = await c.client.callTool({ name: 'turn', arguments: { object: 'lamp', method: 'sing', intent: intent() } });
    assert.not.ok(r.isError);
    const j = r.structuredContent as any;
    assert.is(j.status, 'refused');
    assert.is(j.class, 'noMethod');
    assert.ok(j.receipt, 'its receipt');
  } finally {
    await c.close();
  }
});

mcp('an unknown card, bad input and an unknown tool are error results carrying the envelope', async ({ t, ann }) => {
  const c = await connect(t, ann.token);
  try {
    const unknown = await c.client.callTool({ name: 'object', arguments: { object: 'no-such-card' } });
    assert.ok(unknown.isError);
    const e = unknown.structuredContent as any;
    assert.is(e.class, 'unknown');
    assert.is(e._links.self.href, '/AGENTS.md/world/no-such-card');
    const http = await t.get('/AGENTS.md/world/no-such-card', ann.token);
    assert.equal(e, http.json, 'the envelope the HTTP route answers');
    assert.is((unknown._meta as any)['town/httpStatus'], 404);

    const typo = await c.client.callTool({ name: 'turn', arguments: { object: 'lamp', method: 'fill', intent: intent(), argumnet: {} } });
    assert.ok(typo.isError);
    assert.is((typo.structuredContent as any).class, 'hostRequest');
    assert.match((typo.structuredContent as any).message, 'argumnet');
    const two = await c.client.callTool({ name: 'turn', arguments: { object: 'lamp', method: 'fill', intent: intent(), spell: 'x', fields: {} } });
    assert.is((two.structuredContent as any).class, 'hostRequest');
    const missing = await c.client.callTool({ name: 'object', arguments: {} });
    assert.is((missing.structuredContent as any).class, 'hostRequest');
    const flag = await c.client.callTool({ name: 'source', arguments: { object: 'lamp', full: true } });
    assert.is((flag.structuredContent as any).class, 'hostRequest', 'query flags are text, as the schema says');
    await rejects(c.client.callTool({ name: 'no-such-tool', arguments: {} }), /no tool/);
  } finally {
    await c.close();
  }
});

mcp('without a credential, or with a revoked one, /mcp is 401 with WWW-Authenticate', async ({ t }) => {
  const client = new Client({ name: 'anon', version: '1.0.0' });
  const refused = (await rejects(client.connect(mcpTransport(t.base, undefined)), /unauthenticated/)) as Error & { code?: number };
  assert.is(refused.code, 401);
  const bare = await request(t.base, 'POST', '/mcp', {
    json: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } },
    headers: { accept: 'application/json, text/event-stream' },
  });
  assert.is(bare.status, 401);
  assert.match(String(bare.headers['www-authenticate']), /^Bearer realm="town"/);
  assert.is(bare.json.class, 'unauthenticated');
  const wrong = await request(t.base, 'POST', '/mcp', { token: 'town_cred_nope', json: {}, headers: { accept: 'application/json, text/event-stream' } });
  assert.is(wrong.status, 401);
  assert.match(String(wrong.headers['www-authenticate']), /invalid_token/);
});

mcp('resources: the cards you may see, paged as GET world, read as the card reply; unseen cards are unknown', async ({ t, ann, bob }) => {
  const made = await t.town.world.submit({
    kind: 'create',
    principal: ann.principal,
    intent: 'mcp-secret-1',
    object: 'ann-mcp-secret',
    source: 'type S:\n  n: Natural\n\ndef initial() -> S:\n  return S { n: 0 }\n\nspell poke(self: S) -> S:\n  return self { n: self.n + 1 }\n',
    entry: 'initial',
  });
  assert.is(made.outcome.kind, 'journal');
  // Made straight in the world, not by a caller's turn: nothing waits for the read models, so wait here.
  const head = (await t.town.events.headPosition())!;
  for (const p of t.town.projectors) assert.ok(await p.waitFor(head, 30_000), `${p.names.join(',')} caught up`);
  const a = await connect(t, ann.token);
  const b = await connect(t, bob.token);
  try {
    const all = async (c: typeof a) => {
      const uris: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await c.client.listResources(cursor ? { cursor } : {});
        uris.push(...page.resources.map((r) => r.uri));
        cursor = page.nextCursor;
      } while (cursor);
      return uris;
    };
    const annSees = await all(a);
    const bobSees = await all(b);
    assert.ok(annSees.includes('town://world/lamp'));
    assert.ok(annSees.includes('town://world/ann-mcp-secret'));
    assert.not.ok(bobSees.includes('town://world/ann-mcp-secret'), 'never listed to one who may not see it');
    const world = await t.get('/AGENTS.md/world', bob.token);
    assert.equal(
      bobSees.slice(0, world.json.cards.length),
      world.json.cards.map((c: any) => `town://world/${encodeURIComponent(c.id)}`),
      'the first page is GET world',
    );

    const { resourceTemplates } = await a.client.listResourceTemplates();
    assert.is(resourceTemplates[0].uriTemplate, 'town://world/{object}');
    const read = await a.client.readResource({ uri: 'town://world/lamp' });
    const card = await t.get('/AGENTS.md/world/lamp/card', ann.token);
    assert.is((read.contents[0] as any).text, card.text, 'read as the card reply');

    await rejects(b.client.readResource({ uri: 'town://world/ann-mcp-secret' }), /no card/);
    await rejects(b.client.readResource({ uri: 'town://world/ann-mcp-secrex' }), /no card/);
    await rejects(b.client.subscribeResource({ uri: 'town://world/ann-mcp-secret' }), /no card/);
    const unseen = await b.client.callTool({ name: 'card', arguments: { object: 'ann-mcp-secret' } });
    const absent = await b.client.callTool({ name: 'card', arguments: { object: 'ann-mcp-secrex' } });
    assert.is((unseen.structuredContent as any).class, 'unknown');
    assert.is((unseen.structuredContent as any).message.replace('secret', 'X'), (absent.structuredContent as any).message.replace('secrex', 'X'));
  } finally {
    await a.close();
    await b.close();
  }
});

mcp('a subscriber hears notifications/resources/updated when another client casts on the card', async ({ t, ann, bob }) => {
  const a = await connect(t, ann.token);
  const b = await connect(t, bob.token);
  try {
    const heard: string[] = [];
    a.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (note) => {
      heard.push(note.params.uri);
    });
    await a.client.subscribeResource({ uri: 'town://world/lamp' });
    const before = JSON.parse(((await a.client.readResource({ uri: 'town://world/lamp' })).contents[0] as any).text);
    // No wait for the GET stream: an update sent before it opens is sent on it when it does.
    const cast = await b.client.callTool({ name: 'turn', arguments: { object: 'lamp', method: 'fill', intent: intent(), fields: { measures: 0 } } });
    assert.is((cast.structuredContent as any).status, 'done');
    await eventually(() => (heard.includes('town://world/lamp') ? true : undefined), 5000, 'the update');
    const after = JSON.parse(((await a.client.readResource({ uri: 'town://world/lamp' })).contents[0] as any).text);
    assert.ok(after.version > before.version, `read after the update shows the move (${before.version} -> ${after.version})`);
    await a.client.unsubscribeResource({ uri: 'town://world/lamp' });
  } finally {
    await a.close();
    await b.close();
  }
});

mcp('the prompt is the guide for MCP', async ({ t, ann }) => {
  const c = await connect(t, ann.token);
  try {
    const { prompts } = await c.client.listPrompts();
    assert.equal(
      prompts.map((p) => p.name),
      ['act-in-town'],
    );
    const p = await c.client.getPrompt({ name: 'act-in-town' });
    const text = (p.messages[0].content as any).text as string;
    assert.match(text, '`turn` (POST /AGENTS.md/world/{object}/{method})');
    assert.match(text, '## 5. Cast a turn');
    assert.not.match(text, '## 2. Get a credential');
  } finally {
    await c.close();
  }
});

mcp('a session ends on DELETE, and is only ever its credential’s', async ({ t, ann, bob }) => {
  const c = await connect(t, ann.token);
  const id = c.transport.sessionId!;
  // Another credential naming the session is told it does not exist.
  const stolen = await request(t.base, 'POST', '/mcp', {
    token: bob.token,
    json: { jsonrpc: '2.0', id: 7, method: 'tools/list' },
    headers: { accept: 'application/json, text/event-stream', 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' },
  });
  assert.is(stolen.status, 404);
  assert.is(stolen.json.error.code, -32001);
  await c.transport.terminateSession();
  const after = await request(t.base, 'POST', '/mcp', {
    token: ann.token,
    json: { jsonrpc: '2.0', id: 8, method: 'tools/list' },
    headers: { accept: 'application/json, text/event-stream', 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' },
  });
  assert.is(after.status, 404);
  await c.client.close();
});

mcp('revoking the credential ends its sessions (and their streams), through a tool or over HTTP', async ({ t }) => {
  const held = (g: Guest) => t.town.mcp.sessions.list().filter((s) => s.principal === g.principal);
  const cy = await t.guest('cy');
  const c = await connect(t, cy.token);
  const id = c.transport.sessionId!;
  assert.is(held(cy).length, 1);
  const r = await c.client.callTool({ name: 'revoke', arguments: {} });
  assert.is((r.structuredContent as any).status, 'revoked', 'the revoking call is answered');
  await eventually(() => (held(cy).length === 0 ? true : undefined), 5000, 'the session ended');
  // The session is gone: the same credential is refused outright.
  const after = await request(t.base, 'POST', '/mcp', {
    token: cy.token,
    json: { jsonrpc: '2.0', id: 9, method: 'tools/list' },
    headers: { accept: 'application/json, text/event-stream', 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' },
  });
  assert.is(after.status, 401);
  await c.client.close();

  // Revoked over HTTP (as through any front): the journal's event ends the session and its stream.
  const dee = await t.guest('dee');
  const d = await connect(t, dee.token);
  await eventually(() => (held(dee)[0]?.streaming ? true : undefined), 5000, 'the GET stream open');
  const revoked = await t.post('/AGENTS.md/revoke', dee.token, {});
  assert.is(revoked.status, 200);
  await eventually(() => (held(dee).length === 0 ? true : undefined), 5000, 'the session ended');
  await d.client.close();
});

mcp('a tool spends the credential budget the HTTP routes spend', async ({ t, ann }) => {
  const c = await connect(t, ann.token);
  try {
    const viaMcp = ((await c.client.callTool({ name: 'me', arguments: {} })).structuredContent as any).rateLimit.remaining;
    const viaHttp = (await t.get('/AGENTS.md/me', ann.token)).json.rateLimit.remaining;
    assert.is(viaHttp, viaMcp - 1, 'one budget: the /mcp request spent one, the HTTP one the next');
  } finally {
    await c.close();
  }
});

mcp('sessions: HEAD, a request without one, another credential, DELETE on /mcp', async ({ t, ann }) => {
  const c = await connect(t, ann.token);
  try {
    const id = c.transport.sessionId!;
    const head = await request(t.base, 'HEAD', '/mcp', { token: ann.token, headers: { 'mcp-session-id': id } });
    assert.is(head.status, 200);
    assert.match(String(head.headers['content-type']), 'text/event-stream');
    const none = await request(t.base, 'POST', '/mcp', {
      token: ann.token,
      json: { jsonrpc: '2.0', id: 3, method: 'tools/list' },
      headers: { accept: 'application/json, text/event-stream' },
    });
    assert.is(none.status, 400);
    assert.match(none.json.error.message, 'Mcp-Session-Id');
    const noStream = await request(t.base, 'GET', '/mcp', { token: ann.token, headers: { accept: 'text/event-stream' } });
    assert.is(noStream.status, 400);
    const elsewhere = await request(t.base, 'DELETE', '/AGENTS.md/world', { token: ann.token });
    assert.is(elsewhere.status, 405, 'a path that takes other methods names them');
    assert.is(elsewhere.json.class, 'methodNotAllowed');
    const put = await request(t.base, 'PUT', '/mcp', { token: ann.token });
    assert.is(put.status, 501);
    const crossSite = await request(t.base, 'POST', '/mcp', {
      token: ann.token,
      json: { jsonrpc: '2.0', id: 4, method: 'tools/list' },
      headers: { accept: 'application/json, text/event-stream', 'mcp-session-id': id, origin: 'https://evil.example' },
    });
    assert.is(crossSite.status, 403, 'a page of another site cannot drive a session');
  } finally {
    await c.close();
  }
});

mcp('/llms.txt links the guide, the catalogue and /mcp; the guide and catalogue mention /mcp', async ({ t }) => {
  const r = await request(t.base, 'GET', '/llms.txt');
  assert.is(r.status, 200);
  assert.match(String(r.headers['content-type']), 'text/plain');
  assert.match(r.text, /^# Town\n\n> /);
  for (const link of ['/AGENTS.md)', '/AGENTS.md/api)', '/mcp)']) assert.match(r.text, link);
  const guide = await request(t.base, 'GET', '/AGENTS.md', { headers: { accept: 'text/plain' } });
  assert.match(guide.text, '/mcp');
  const api = await request(t.base, 'GET', '/AGENTS.md/api');
  assert.ok(api.json.routes.some((x: any) => x.href === '/mcp'));
  assert.match(api.json.conventions.mcp, '/mcp');
});

mcp.run();
