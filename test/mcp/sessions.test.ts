/**
 * The MCP sessions' limits, on a town that holds them short: a GET stream held for less than a
 * second (the client reconnects and still hears updates), a few sessions per credential (the
 * least recently used ends), a few in all (then `busy`), and idle sessions ended.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { request, startTestTown, type Guest, type TestTown } from '../world/support.js';
import { connect, eventually, shown } from './support.js';

const sessions = suite<{ t: TestTown; ann: Guest; bob: Guest }>('mcp sessions');

sessions.before(async (ctx) => {
  ctx.t = await startTestTown({ mcp: { holdMs: 300, sessionsPerCredential: 2, sessions: 5, idleMs: 400 } });
  ctx.ann = await ctx.t.guest('ann');
  ctx.bob = await ctx.t.guest('bob');
  await shown(ctx.t, ctx.ann.token, 'lamp');
});
sessions.after(async (ctx) => {
  await ctx.t.close();
});

const initialize = (t: TestTown, g: Guest) =>
  request(t.base, 'POST', '/mcp', {
    token: g.token,
    json: {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    },
    headers: { accept: 'application/json, text/event-stream' },
  });

sessions('a stream held past its time reconnects, and updates still arrive', async ({ t, ann, bob }) => {
  const a = await connect(t, ann.token);
  const b = await connect(t, bob.token);
  try {
    const heard: string[] = [];
    a.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (note) => {
      heard.push(note.params.uri);
    });
    await a.client.subscribeResource({ uri: 'town://world/lamp' });
    // Past two holds: the stream has been ended and opened again.
    await new Promise((r) => setTimeout(r, 800));
    await b.client.callTool({ name: 'turn', arguments: { object: 'lamp', method: 'fill', intent: 'held-1', fields: { measures: 0 } } });
    await eventually(() => (heard.length > 0 ? true : undefined), 5000, 'the update after a reconnect');
    assert.equal(heard, ['town://world/lamp']);
  } finally {
    await a.close();
    await b.close();
  }
});

/** Reads a GET stream until `until` holds of the text so far (or `ms` pass), then lets it go. */
async function readStream(t: TestTown, g: Guest, id: string, lastEventId: string | undefined, until: (text: string) => boolean, ms = 3000): Promise<string> {
  const abort = new AbortController();
  const r = await fetch(`${t.base}/mcp`, {
    headers: {
      authorization: `Bearer ${g.token}`,
      accept: 'text/event-stream',
      'mcp-session-id': id,
      'mcp-protocol-version': '2025-06-18',
      ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
    },
    signal: abort.signal,
  });
  assert.is(r.status, 200);
  const reader = (r.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  const timer = setTimeout(() => abort.abort(), ms);
  try {
    while (!until(text)) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
  } catch {
    // Aborted: the time ran out.
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
  return text;
}

sessions('an update sent while no stream is open comes on the next; a client resuming hears the rest', async ({ t, ann, bob }) => {
  const init = await initialize(t, ann);
  const id = String(init.headers['mcp-session-id']);
  const post = (json: unknown) =>
    request(t.base, 'POST', '/mcp', {
      token: ann.token,
      json,
      headers: { accept: 'application/json, text/event-stream', 'mcp-session-id': id, 'mcp-protocol-version': '2025-06-18' },
    });
  assert.is((await post({ jsonrpc: '2.0', method: 'notifications/initialized' })).status, 202);
  assert.is((await post({ jsonrpc: '2.0', id: 2, method: 'resources/subscribe', params: { uri: 'town://world/lamp' } })).status, 200);
  const session = t.town.mcp.sessions.list().find((x) => x.id === id)!;
  const cast = (i: string) => t.post('/AGENTS.md/world/lamp/fill', bob.token, { intent: i, fields: { measures: 0 } });
  // No stream open: the update waits.
  assert.is((await cast('unsent-1')).status, 200);
  await new Promise((r) => setTimeout(r, 300));
  assert.not.ok(session.streaming);
  const first = await readStream(t, ann, id, undefined, (x) => x.includes('notifications/resources/updated'));
  assert.match(first, '"uri":"town://world/lamp"');
  const lastId = /id: (\S+)/.exec(first.slice(first.lastIndexOf('id: ')))?.[1];
  assert.ok(lastId, 'the message came with an id');
  // Missed while away, heard on resuming after the last id seen.
  assert.is((await cast('unsent-2')).status, 200);
  await new Promise((r) => setTimeout(r, 300));
  const resumed = await readStream(t, ann, id, lastId, (x) => x.includes('notifications/resources/updated'));
  assert.match(resumed, 'notifications/resources/updated');
  assert.not.match(resumed, `id: ${lastId}\n`, 'nothing heard before is heard again');
});

sessions('a credential holds a few sessions: opening another ends the least recently used', async ({ t, ann }) => {
  const first = await connect(t, ann.token, 'first');
  const second = await connect(t, ann.token, 'second');
  await second.client.listTools();
  const third = await connect(t, ann.token, 'third');
  try {
    const ids = () =>
      t.town.mcp.sessions
        .list()
        .filter((s) => s.principal === ann.principal)
        .map((s) => s.id);
    await eventually(() => (ids().length === 2 ? true : undefined), 2000, 'two sessions');
    assert.not.ok(ids().includes(first.transport.sessionId), 'the first ended');
    assert.ok(ids().includes(third.transport.sessionId));
  } finally {
    await Promise.all([first, second, third].map((c) => c.close()));
  }
});

sessions('a front holds a few sessions in all; idle ones end', async ({ t, ann, bob }) => {
  const cy = await t.guest('cy');
  const dee = await t.guest('dee');
  const raw = [];
  for (const g of [ann, ann, bob, bob, cy]) raw.push(await initialize(t, g));
  for (const r of raw) assert.is(r.status, 200, r.text);
  const full = await initialize(t, dee);
  assert.is(full.status, 503);
  assert.is(full.json.class, 'busy');
  // Nothing holds these sessions (no requests, no stream): they end.
  await eventually(() => (t.town.mcp.sessions.size === 0 ? true : undefined), 3000, 'idle sessions ended');
  const again = await initialize(t, dee);
  assert.is(again.status, 200);
});

sessions.run();
