/**
 * `GET /metrics`: the Prometheus text of a running town, read by a strict
 * parser of the format; its counters move when turns happen; it is answered only to the
 * operator's addresses or token, and to anyone else exactly as a path no route has.
 */
import http from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { issueInvitation } from '../../src/identity/operator.js';
import { createLimiters } from '../../src/contract/rate-limit.js';
import { request, startTestTown, testClock, type TestTown } from '../world/support.js';
import { parsePrometheus, sampleValue } from './prometheus.js';

const scrape = async (t: TestTown, headers: Record<string, string> = {}) => {
  const r = await request(t.base, 'GET', '/metrics', { headers: { accept: 'text/plain', ...headers } });
  return r;
};

test('the metrics parse, and the turn, request and journal figures move with turns', async () => {
  const t = await startTestTown();
  try {
    const ann = await t.guest('ann');
    const first = await scrape(t);
    assert.is(first.status, 200, first.text);
    assert.match(String(first.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    const before = parsePrometheus(first.text);
    for (const name of [
      'town_http_requests_total',
      'town_http_request_duration_seconds',
      'town_turns_total',
      'town_http_failures_total',
      'town_journal_height',
      'town_journal_head_position',
      'town_projection_checkpoint',
      'town_projection_lag_seconds',
      'town_append_duration_seconds',
      'town_append_batch_entries',
      'town_http_requests_in_flight',
      'town_live_streams',
      'town_scratch_worlds_open',
      'town_mcp_sessions',
      'town_ready',
      'town_read_store_change_stream_restarts_total',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_p99_seconds',
      'nodejs_heap_size_used_bytes',
    ]) {
      assert.ok(before.has(name), `${name} is exposed`);
    }
    // accept answered 200 before the first scrape; the scrape itself counts once it is answered.
    assert.is(sampleValue(before, 'town_http_requests_total', { route: 'accept', status: '200' }), 1);
    const height = sampleValue(before, 'town_journal_height');
    // The embedded read store has no change stream to restart (MongoDB's: restarting-stream.test.ts).
    assert.is(sampleValue(before, 'town_read_store_change_stream_restarts_total'), 0);

    const turn = (method: string, intent: string) => t.post(`/AGENTS.md/world/lamp/${method}`, ann.token, { intent });
    assert.is((await turn('light', 'm-1')).json.status, 'done');
    assert.is((await turn('light', 'm-2')).json.class, 'cardRefused');
    assert.is((await turn('light', 'm-2')).json.class, 'cardRefused'); // the same intent again: a repeat
    assert.is((await t.get('/AGENTS.md/world/lamp', ann.token)).status, 200);
    assert.is((await t.get('/AGENTS.md/no-such-route', ann.token)).status, 404);

    const after = parsePrometheus((await scrape(t)).text);
    assert.is(sampleValue(after, 'town_turns_total', { world: 'town', outcome: 'done', class: '' }), 1);
    assert.is(sampleValue(after, 'town_turns_total', { world: 'town', outcome: 'refused', class: 'cardRefused' }), 1);
    assert.is(sampleValue(after, 'town_turns_total', { world: 'town', outcome: 'repeat', class: '' }), 1);
    assert.is(sampleValue(after, 'town_http_requests_total', { route: 'turn', status: '200' }), 3);
    assert.is(sampleValue(after, 'town_http_request_duration_seconds_count', { route: 'turn' }), 3);
    assert.ok(sampleValue(after, 'town_http_request_duration_seconds_sum', { route: 'turn' }) > 0);
    assert.is(sampleValue(after, 'town_http_requests_total', { route: 'object', status: '200' }), 1);
    assert.is(sampleValue(after, 'town_http_requests_total', { route: 'unmatched', status: '404' }), 1);
    assert.is(sampleValue(after, 'town_http_failures_total', { class: 'unknownRoute' }), 1);
    assert.is(sampleValue(after, 'town_http_requests_total', { route: 'metrics', status: '200' }), 1);
    assert.ok(sampleValue(after, 'town_journal_height') >= height + 2, 'the journal grew by the done and the refused turn');
    assert.ok(sampleValue(after, 'town_append_batch_entries_count') > sampleValue(before, 'town_append_batch_entries_count'));
    assert.ok(sampleValue(after, 'town_append_duration_seconds_count') > sampleValue(before, 'town_append_duration_seconds_count'));
    assert.is(sampleValue(after, 'town_http_requests_in_flight'), 1, 'the scrape itself is in flight');
    // Every in-process read model is listed; those the turn's reads wait for have folded it (the
    // repository lingers a second before it folds, and is -1 until then).
    const checkpoints = after.get('town_projection_checkpoint')!.samples;
    assert.ok(checkpoints.length >= 5);
    for (const s of checkpoints) if (s.labels.projection !== 'repository') assert.ok(s.value >= 0, `${s.labels.projection} has a checkpoint`);
    // Ready once every read model has folded the journal as it stood at the start (the
    // repository's lingering second included).
    const until = Date.now() + 10_000;
    let ready = await request(t.base, 'GET', '/ready');
    while (ready.status !== 200 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 100));
      ready = await request(t.base, 'GET', '/ready');
    }
    assert.is(ready.status, 200, ready.text);
    assert.is(sampleValue(parsePrometheus((await scrape(t)).text), 'town_ready'), 1);
  } finally {
    await t.close();
  }
});

test('open scratch worlds and their turns, and a live stream while it is open', async () => {
  const t = await startTestTown();
  try {
    const bo = await t.guest('bo');
    const opened = await t.post('/AGENTS.md/scratch', bo.token, { name: 'sandbox' });
    assert.is(opened.status, 200, opened.text);
    const cast = await t.post('/AGENTS.md/scratch/sandbox/world/lamp/light', bo.token, { intent: 's-1' });
    assert.is(cast.status, 200, cast.text);
    const m = parsePrometheus((await scrape(t)).text);
    assert.is(sampleValue(m, 'town_scratch_worlds_open'), 1);
    assert.is(sampleValue(m, 'town_turns_total', { world: 'scratch', outcome: cast.json.status, class: cast.json.class ?? '' }), 1);
    assert.is(sampleValue(m, 'town_http_requests_total', { route: 'scratch.turn', status: '200' }), 1);

    const { code } = await issueInvitation(t.town.events, t.clock, { guest: null, lifetimeMs: 86_400_000 });
    const entered = await request(t.base, 'POST', '/enter', { form: { code, name: 'ann' }, headers: { accept: 'text/html' } });
    const cookie = ((entered.headers['set-cookie'] ?? []).find((c) => c.startsWith('town_session=')) ?? '').split(';')[0]!;
    assert.ok(cookie.length > 'town_session='.length);
    const open = http.get(`${t.base}/live`, { headers: { cookie, accept: 'text/event-stream' } });
    const response = await new Promise<http.IncomingMessage>((resolve, reject) => open.on('response', resolve).on('error', reject));
    assert.is(response.statusCode, 200);
    assert.is(sampleValue(parsePrometheus((await scrape(t)).text), 'town_live_streams', { route: 'live' }), 1);
    open.destroy();
    let now = 1;
    for (const until = Date.now() + 5000; now !== 0 && Date.now() < until; await new Promise((r) => setTimeout(r, 50))) {
      now = sampleValue(parsePrometheus((await scrape(t)).text), 'town_live_streams', { route: 'live' });
    }
    assert.is(now, 0, 'closed, it is no longer counted');
  } finally {
    await t.close();
  }
});

test('/metrics from an address the operator does not allow: unknownRoute, as a path no route has; the token opens it', async () => {
  const token = 'operator-token-0123456789';
  // Three unauthenticated calls a minute from one address, to see rateLimited counted.
  const clock = testClock();
  const t = await startTestTown({
    clock,
    settings: { metricsAllow: '10.0.0.0/8,fd00::/8', metricsToken: token },
    limiters: createLimiters(clock, { credential: [10_000, 1], identity: [3, 60], page: [10_000, 1], xrpc: [10_000, 1] }),
  });
  try {
    const refused = await scrape(t);
    assert.is(refused.status, 404);
    assert.is(refused.json.class, 'unknownRoute');
    const nothing = await request(t.base, 'GET', '/no-such-thing');
    assert.equal(
      { ...refused.json, message: refused.json.message.replace('/metrics', '/X'), _links: undefined },
      { ...nothing.json, message: nothing.json.message.replace('/no-such-thing', '/X'), _links: undefined },
      'word for word the answer to a path no route has',
    );
    for (const wrong of [`Bearer ${token}x`, `Bearer ${token.slice(1)}`, token, `Basic ${token}`, 'Bearer ']) {
      assert.is((await scrape(t, { authorization: wrong })).status, 404, wrong);
    }
    for (let i = 0; i < 4; i++) await request(t.base, 'POST', '/AGENTS.md/accept', { json: { code: 'svc_invite_none', name: 'x' } });
    const allowed = await scrape(t, { authorization: `Bearer ${token}` });
    assert.is(allowed.status, 200);
    const m = parsePrometheus(allowed.text);
    assert.is(sampleValue(m, 'town_http_failures_total', { class: 'rateLimited' }), 1);
    assert.is(sampleValue(m, 'town_http_requests_total', { route: 'accept', status: '429' }), 1);
    // The refused scrapes were counted as what they answered.
    assert.is(sampleValue(m, 'town_http_requests_total', { route: 'metrics', status: '404' }), 6);
    // The catalogue does not list it: it is the operator's, not the agents'.
    const api = await request(t.base, 'GET', '/AGENTS.md/api');
    assert.not.ok(api.json.routes.some((r: { name: string }) => r.name === 'metrics'));
    assert.ok(api.json.routes.some((r: { name: string }) => r.name === 'ready'));
  } finally {
    await t.close();
  }
});

test('the strict reader refuses what a scraper would', () => {
  assert.throws(() => parsePrometheus('x 1'), /line feed/);
  assert.throws(() => parsePrometheus('x 1\n'), /no TYPE/);
  assert.throws(() => parsePrometheus('# TYPE x gauge\nx{a="1} 1\n'), /not a sample/);
  assert.throws(() => parsePrometheus('# TYPE x gauge\nx 1\nx 2\n'), /repeated/);
  assert.throws(() => parsePrometheus('# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_sum 1\nh_count 1\n'), /cumulative/);
  assert.throws(() => parsePrometheus('# TYPE h histogram\nh_bucket{le="1"} 1\nh_sum 1\nh_count 1\n'), /\+Inf/);
  assert.ok(parsePrometheus('# HELP x a "help"\n# TYPE x counter\nx{a="b\\"c",d="e"} 1.5e3\n\n').get('x')!.samples[0]!.labels.a === 'b"c');
});

test.run();
