/**
 * The tools against the route table: every agent route is a tool (and nothing else is), each
 * tool's input schema has exactly the row's path parameters, query fields and body fields with
 * the codecs' required ones required, and the schemas are ones an MCP client's validator (the
 * SDK's Ajv) compiles and that agree with the codecs on what they accept. A route added to the
 * table cannot miss its tool: its row is checked here as soon as it exists.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { FieldsType, CheckedType } from '../../src/contract/codec.js';
import { type Route, routes } from '../../src/http/routes.js';
import { agentTools, isAgentRoute, routeArguments } from '../../src/mcp/tools.js';
import { startTestTown } from '../world/support.js';

const table = routes as readonly Route[];
const all = agentTools(table, () => true, true);

/** The named fields of an object codec (under any rules), required ones first. */
function fieldsOf(codec: unknown): { required: string[]; optional: string[] } {
  let c = codec;
  while (c instanceof CheckedType) c = c.base;
  if (!(c instanceof FieldsType)) throw new Error('not an object codec');
  return { required: Object.keys(c.required), optional: Object.keys(c.optional) };
}

const paramsOf = (path: string) => [...path.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]);

test('every agent route of the table is one tool of its name, and no other route is', () => {
  const agent = table.filter(isAgentRoute);
  assert.ok(agent.length >= 19, 'the agent routes of spec 4.2–4.4');
  assert.equal(
    all.map((t) => t.tool.name),
    agent.map((r) => r.name),
  );
  for (const r of table) {
    if (isAgentRoute(r)) continue;
    // Why each other row is no tool: it is not for a credential's holder (pages, identity before
    // a credential, the repository), or it is the MCP endpoint itself.
    assert.ok(r.auth !== 'bearer' || !r.path.startsWith('/AGENTS.md'), `${r.name} is an agent route`);
  }
});

test("each tool's input schema is its row: path parameters, query fields, body fields, scratch", () => {
  for (const t of all) {
    const r = t.route;
    const params = paramsOf(r.path);
    const query = r.query ? fieldsOf(r.query) : { required: [], optional: [] };
    const body = r.body ? fieldsOf(r.body) : { required: [], optional: [] };
    const expected = [...params, ...query.required, ...query.optional, ...body.required, ...body.optional, ...(r.scratch ? ['scratch'] : [])];
    const schema = t.tool.inputSchema as { type: string; properties: Record<string, unknown>; required?: string[]; additionalProperties: boolean };
    assert.is(schema.type, 'object', r.name);
    assert.equal(Object.keys(schema.properties).sort(), [...expected].sort(), `${r.name} properties`);
    assert.equal([...(schema.required ?? [])].sort(), [...params, ...query.required, ...body.required].sort(), `${r.name} required`);
    assert.is(schema.additionalProperties, false, `${r.name} takes nothing else`);
    assert.ok(t.tool.description?.includes(r.does), `${r.name} is described as the catalogue does`);
    assert.is(t.tool.annotations?.readOnlyHint, r.method === 'GET', `${r.name} read-only as a GET`);
  }
});

test('unbuilt routes have no tool; scratch tails only once scratch worlds open', () => {
  const some = agentTools(table, (r) => !['scratch', 'repl', 'check', 'cite', 'scratchObjects'].includes(r.name), false);
  const names = some.map((t) => t.tool.name);
  for (const n of ['scratch', 'repl', 'check', 'cite', 'scratchObjects']) assert.not.ok(names.includes(n), n);
  for (const t of some) assert.not.ok('scratch' in (t.tool.inputSchema.properties ?? {}), `${t.tool.name} takes no scratch yet`);
  const world = all.find((t) => t.tool.name === 'world')!;
  assert.ok('scratch' in (world.tool.inputSchema.properties ?? {}), 'with scratch served, world takes scratch');
});

test('the schemas compile in the SDK validator and agree with the codecs', () => {
  const ajv = new AjvJsonSchemaValidator();
  const validators = new Map(all.map((t) => [t.tool.name, ajv.getValidator(t.tool.inputSchema as never)]));
  const turn = validators.get('turn')!;
  const ok = (name: string, args: Record<string, unknown>) => {
    const v = validators.get(name)!(args);
    assert.ok(v.valid, `${name} ${JSON.stringify(args)}: ${v.errorMessage}`);
    // What the schema takes the codecs take too (rules across fields aside).
    const t = all.find((x) => x.tool.name === name)!;
    const a = routeArguments(t, args);
    if (t.route.body) assert.ok(t.route.body.decode(a.body)._tag === 'Right', `${name} body codec takes ${JSON.stringify(a.body)}`);
    if (t.route.query) assert.ok(t.route.query.decode(a.query)._tag === 'Right', `${name} query codec takes ${JSON.stringify(a.query)}`);
  };
  const no = (name: string, args: Record<string, unknown>) => {
    assert.not.ok(validators.get(name)!(args).valid, `${name} refuses ${JSON.stringify(args)}`);
    const t = all.find((x) => x.tool.name === name)!;
    let codecRefuses = false;
    try {
      const a = routeArguments(t, args);
      if (t.route.body && t.route.body.decode(a.body)._tag === 'Left') codecRefuses = true;
      if (t.route.query && t.route.query.decode(a.query)._tag === 'Left') codecRefuses = true;
      if (t.params.some((p) => p === 'object' && !/^[A-Za-z0-9._:/-]{1,128}$/.test(a.params[p]))) codecRefuses = true;
    } catch {
      codecRefuses = true;
    }
    assert.ok(codecRefuses, `the route refuses ${JSON.stringify(args)} too`);
  };
  const base = { object: 'lamp', method: 'fill', intent: 'i-1' };
  ok('turn', { ...base, fields: { measures: 0 } });
  ok('turn', { ...base, spell: 'fill measures=1' });
  ok('turn', { ...base, argument: { tag: 'record', fields: [{ name: 'measures', value: { tag: 'natural', value: 1 } }] } });
  ok('turn', { ...base, argument: { tag: 'variant', label: 'on' } });
  ok('turn', { ...base, if: [{ object: 'lamp', version: 3 }], try: true, compact: '1' });
  ok('turn', base);
  no('turn', { ...base, argumnet: {} });
  no('turn', { ...base, intent: '' });
  no('turn', { ...base, intent: 'a\u0001b' });
  no('turn', { ...base, try: 'yes' });
  no('turn', { ...base, if: [{ object: 'lamp', version: -1 }] });
  no('turn', { ...base, argument: { tag: 'colour', value: 'red' } });
  no('turn', { ...base, compact: true });
  no('turn', { object: 'lamp', method: 'fill' });
  no('turn', { ...base, object: 'a lamp' });
  ok('offers', { wait: '30', after: '12' });
  no('offers', { wait: '31' });
  ok('receiptByIntent', { intent: 'i-1', full: '1' });
  no('receiptByIntent', {});
  ok('feedPost', { text: 'hello' });
  no('feedPost', { text: '   ' });
  ok('world', { after: 'lamp', prefix: 'la' });
  ok('me', {});
  no('me', { extra: 1 });
  assert.ok(turn({ ...base, fields: {} }).valid);
});

test('a live town lists exactly its built agent routes as tools', async () => {
  const t = await startTestTown();
  try {
    const { connect } = await import('./support.js');
    const guest = await t.guest('tess');
    const c = await connect(t, guest.token);
    try {
      const { tools } = await c.client.listTools();
      const api = await (await fetch(`${t.base}/AGENTS.md/api`)).json();
      const served = api.routes.filter((r: any) => r.built !== false && r.auth === 'bearer' && r.href.startsWith('/AGENTS.md')).map((r: any) => r.name);
      assert.equal(tools.map((x) => x.name).sort(), served.sort());
    } finally {
      await c.close();
    }
  } finally {
    await t.close();
  }
});

test.run();
