/**
 * Handlers of the repository routes (spec 4.5): GET /xrpc/{nsid} dispatches to the repository's
 * queries by NSID (the table of src/repository/xrpc/index.ts, one module a method), and the DID
 * documents of the town and of its guests.
 * Failures are AT Protocol errors (spec 7.3): an NSID the town does not serve is
 * MethodNotImplemented, a text that is no NSID InvalidRequest.
 *
 * The service calls (spec 5.6) are here too: getServiceAuth, which the town's bearer credential
 * opens, and the town's getEntry (GET) and act / try / plan (POST), which a service JWT opens
 * (src/repository/service-auth.ts verifies it) and which then run as that token's account, by
 * the same turn path and with the same receipt as /AGENTS.md (./world.ts). The hosted writes
 * (createRecord, putRecord, deleteRecord, applyWrites), which the account's own credential
 * opens, are ./hosted.ts.
 */
import { isValidNsid } from '@atproto/syntax';
import { XrpcFailure } from '../../contract/xrpc-failure.js';
import { isGuestName } from '../../identity/names.js';
import { didDocument, guestDidDocument, townDid, townHandle } from '../../repository/identity.js';
import { hostedAccount } from '../../repository/hosted/accounts.js';
import { type HostedWriteDeps, hostedProcedures } from './hosted.js';
import { RepositoryReads } from '../../repository/reads.js';
import { type XrpcDeps, xrpcMethods } from '../../repository/xrpc/index.js';
import { TownError } from '../../contract/town-error.js';
import type { RoomHandlers } from '../route-types.js';
import { castTurn } from '../../commands/turn.js';
import type { WorldService } from '../../commands/world-service.js';
import { TurnBody } from '../../contract/bodies.js';
import type { Caller } from '../../contract/caller.js';
import type { ReadYourWrites } from '../../queries/fresh.js';
import { receiptByHeight, receiptBySlug } from '../../queries/receipt.js';
import { spellableId, type WorldReads } from '../../queries/world-reads.js';
import type { ServiceAuth } from '../../repository/service-auth.js';
import { actNsid, getEntryNsid, getServiceAuthNsid, planNsid, tryNsid } from '../../repository/lexicons.js';
import { decode } from '../front/decode.js';
import type { TownContext } from '../handler.js';
import { turnReply } from './world.js';

export type { XrpcDeps };

/** What the service calls need beside the repository: the token checker and the town's turn path. */
export interface ServiceCallDeps {
  auth: ServiceAuth;
  service: WorldService;
  fresh: ReadYourWrites;
  world: WorldReads;
}

/** A procedure's JSON object body (the xrpcProcedure row has no codec: each procedure decodes its own). */
function bodyOf(ctx: TownContext, nsid: string): Record<string, unknown> {
  const raw = ctx.state.body;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new XrpcFailure('InvalidRequest', `${nsid} takes a JSON object body`);
  return raw as Record<string, unknown>;
}

/** The raw bearer token (a service JWT the front left unverified). */
function bearer(ctx: TownContext): string | undefined {
  const m = /^Bearer +(\S+) *$/i.exec(ctx.req.headers.authorization ?? '');
  return m ? m[1] : undefined;
}

export function xrpcHandlers(
  deps: XrpcDeps & { calls: ServiceCallDeps; writes: HostedWriteDeps },
): RoomHandlers<'xrpc' | 'xrpcProcedure' | 'didDocument' | 'guestDidDocument'> {
  const repo = new RepositoryReads(deps.reads);
  const did = async () => (await repo.head())?.did ?? townDid(deps.config.host);
  const { auth, fresh } = deps.calls;

  /** A turn as the token's account: the body of act / try is a turn body plus its object and method. */
  async function act(ctx: TownContext, lxm: string, dry: boolean): Promise<object> {
    const account = await auth.verify(bearer(ctx), lxm);
    const { object: objectText, method, ...rest } = bodyOf(ctx, lxm);
    if (typeof objectText !== 'string' || typeof method !== 'string' || method === '') {
      throw new XrpcFailure('InvalidRequest', `${lxm} needs object and method (text) beside the turn's intent`);
    }
    const body = decode(TurnBody, dry ? { ...rest, try: true } : rest, 'body') as TurnBody;
    const object = spellableId(objectText);
    const decided = await castTurn(deps.calls.service, account, object, method, body);
    fresh.note(account.principal, decided.position);
    return turnReply(decided, object, {});
  }

  /**
   * Several acts in one turn: the kernel's own plan spell (`plan { <act>; <act> }`, cast at the
   * object as `receive`), so its refusals are the kernel's badSpell clauses (spec 7.2).
   */
  async function plan(ctx: TownContext): Promise<object> {
    const account = await auth.verify(bearer(ctx), planNsid);
    const { object: objectText, acts, ...rest } = bodyOf(ctx, planNsid);
    if (typeof objectText !== 'string' || !Array.isArray(acts) || !acts.length || !acts.every((a) => typeof a === 'string' && a.trim() !== '')) {
      throw new XrpcFailure('InvalidRequest', `${planNsid} needs object (text) and acts (spells, at least one) beside the turn's intent`);
    }
    const body = decode(TurnBody, { ...rest, spell: `plan { ${acts.join('; ')} }` }, 'body') as TurnBody;
    const object = spellableId(objectText);
    const decided = await castTurn(deps.calls.service, account, object, 'receive', body);
    fresh.note(account.principal, decided.position);
    return turnReply(decided, object, {});
  }

  const procedures: Record<string, (ctx: TownContext) => Promise<object>> = {
    [actNsid]: (ctx) => act(ctx, actNsid, false),
    [tryNsid]: (ctx) => act(ctx, tryNsid, true),
    [planNsid]: plan,
    ...hostedProcedures(deps.writes),
  };

  /** The GET calls that need a caller: the town's credential (getServiceAuth) or a service JWT (getEntry). */
  const callerQueries: Record<string, (ctx: TownContext & { state: { caller: Caller | undefined } }) => Promise<object>> = {
    [getServiceAuthNsid]: async (ctx) => {
      const caller = ctx.state.caller;
      if (!caller) {
        if (bearer(ctx) === undefined)
          throw new XrpcFailure('AuthRequired', `${getServiceAuthNsid} needs the account's credential: Authorization: Bearer <credential>`);
        throw new XrpcFailure('InvalidToken', 'the credential is not one this town issued, or it was revoked');
      }
      return auth.issue(caller.did, ctx.state.query as Record<string, string | undefined>);
    },
    [getEntryNsid]: async (ctx) => {
      const account = await auth.verify(bearer(ctx), getEntryNsid);
      const q = ctx.state.query as Record<string, string | undefined>;
      const full = q.full === 'true';
      await fresh.settle(account.principal, 'receipts');
      try {
        if (q.height !== undefined) {
          if (!/^\d{1,15}$/.test(q.height)) throw new XrpcFailure('InvalidRequest', 'height is a natural number');
          return await receiptByHeight(deps.calls.world, Number(q.height), account.principal, full);
        }
        if (q.cid !== undefined && q.cid !== '') return await receiptBySlug(deps.calls.world, q.cid, account.principal, full);
      } catch (error) {
        // A receipt the account may not read answers as absent (spec 5.7), in 7.3's words.
        if (error instanceof TownError && error.cls === 'unknown') throw new XrpcFailure('RecordNotFound', error.message);
        throw error;
      }
      throw new XrpcFailure('InvalidRequest', 'give height or cid');
    },
  };

  return {
    xrpcProcedure: async (ctx) => {
      const nsid = ctx.params.nsid;
      const procedure = Object.hasOwn(procedures, nsid) ? procedures[nsid] : undefined;
      if (!procedure) {
        if (!isValidNsid(nsid)) throw new XrpcFailure('InvalidRequest', `${JSON.stringify(nsid.slice(0, 120))} is not an NSID`);
        throw new XrpcFailure('MethodNotImplemented', `${nsid} is not a procedure served here; the catalogue's xrpc route lists what is`);
      }
      return procedure(ctx);
    },

    xrpc: async (ctx) => {
      const nsid = ctx.params.nsid;
      if (Object.hasOwn(callerQueries, nsid)) return callerQueries[nsid]!(ctx);
      const method = Object.hasOwn(xrpcMethods, nsid) ? xrpcMethods[nsid] : undefined;
      if (!method) {
        if (!isValidNsid(nsid)) throw new XrpcFailure('InvalidRequest', `${JSON.stringify(nsid.slice(0, 120))} is not an NSID`);
        throw new XrpcFailure('MethodNotImplemented', `${nsid} is not served here; the catalogue's xrpc route lists what is`);
      }
      const out = await method.handler(deps, ctx.state.query);
      if ('car' in out) {
        ctx.type = 'application/vnd.ipld.car';
        ctx.body = Buffer.from(out.car.buffer, out.car.byteOffset, out.car.byteLength);
        return undefined;
      }
      return out;
    },

    didDocument: async () => didDocument(await did(), townHandle(deps.config.host), deps.config.origin, deps.keys),

    // A guest's did:web (`did:web:<host>:guest:<name>`); the town's commit key speaks for the
    // accounts it hosts, so a guest's document names the same key and service as the town's.
    guestDidDocument: async (ctx) => {
      const name = ctx.params.name;
      if (!isGuestName(name) || (await deps.events.streamRevision(`guest-${name}`)) === undefined) {
        throw new TownError('unknownRoute', `no guest ${JSON.stringify(name.slice(0, 40))} in this town`);
      }
      const account = hostedAccount(deps.config.host, name);
      return guestDidDocument(account.did, account.handle, deps.config.origin, deps.keys);
    },
  };
}
