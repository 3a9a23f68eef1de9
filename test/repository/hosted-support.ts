/** What the hosted-records tests share: a town with two guests, AT Protocol's client, and how a refusal is checked. */
import { AtpAgent, type XRPCError } from '@atproto/api';
import * as assert from 'uvu/assert';
import { townLexicons } from '../../src/repository/lexicons.js';
import { startTestTown, type Guest, type TestTown } from '../world/support.js';

export interface HostedCtx {
  t: TestTown;
  agent: AtpAgent;
  ann: Guest;
  bob: Guest;
  annDid: string;
  bobDid: string;
  townDid: string;
  commitKey: string;
}

export const collection = 'town.guest.request';
export const auth = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });
export const request = (object: string, text: string) => ({ $type: collection, object, text, createdAt: new Date(0).toISOString() });

/** AT Protocol's client for the town, with the town's lexicons. */
export function agentFor(base: string): AtpAgent {
  const agent = new AtpAgent({ service: base });
  for (const doc of townLexicons) agent.lex.add(doc as never);
  return agent;
}

/** A town (with a firehose listener) and its guests ann and bob. */
export async function openHostedTown(ctx: HostedCtx): Promise<void> {
  ctx.t = await startTestTown({ settings: { firehosePort: 0, listenHost: '127.0.0.1' } });
  ctx.agent = agentFor(ctx.t.base);
  ctx.ann = await ctx.t.guest('ann');
  ctx.bob = await ctx.t.guest('bob');
  ctx.annDid = 'did:web:town.test:guest:ann';
  ctx.bobDid = 'did:web:town.test:guest:bob';
  ctx.townDid = (await ctx.t.request('GET', '/.well-known/did.json')).json.id;
  ctx.commitKey = await keyOf(ctx.agent, 'ann');
}

/** Waits until every projector (the repository's among them) has folded the whole journal. */
export async function settled(t: TestTown): Promise<void> {
  const head = (await t.town.events.headPosition())!;
  for (const p of t.town.projectors) assert.ok(await p.waitFor(head, 30_000), `${p.names.join(',')} caught up`);
}

/** The did:key of a guest's `#atproto` key, from its DID document. */
export async function keyOf(agent: AtpAgent, name: string): Promise<string> {
  const doc = await (await fetch(`${agent.serviceUrl.origin}/guest/${name}/did.json`)).json();
  return `did:key:${doc.verificationMethod.find((m: { id: string }) => m.id.endsWith('#atproto')).publicKeyMultibase}`;
}

export async function failure(call: Promise<unknown>): Promise<XRPCError> {
  try {
    await call;
  } catch (error) {
    return error as XRPCError;
  }
  throw new Error('the call succeeded');
}

export async function refused(call: Promise<unknown>, error: string, status: number): Promise<void> {
  const e = await failure(call);
  assert.is(e.error, error, `${e.error}: ${e.message}`);
  assert.is(e.status, status, e.message);
}
