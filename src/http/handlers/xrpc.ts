/**
 * Handlers of the repository routes (spec 4.5): GET /xrpc/{nsid} dispatches to the repository's
 * queries by NSID (src/repository/xrpc.ts), and the DID documents of the town and of its guests.
 * Failures are AT Protocol errors (spec 7.3): an NSID the town does not serve is
 * MethodNotImplemented, a text that is no NSID InvalidRequest.
 */
import { isValidHandle, isValidNsid } from '@atproto/syntax';
import { XrpcFailure } from '../../contract/xrpc-failure.js';
import { didOf, handleOf, isGuestName } from '../../identity/names.js';
import { didDocument, invalidHandle, townDid, townHandle } from '../../repository/identity.js';
import { RepositoryReads } from '../../repository/reads.js';
import { type XrpcDeps, xrpcMethods } from '../../repository/xrpc.js';
import { TownError } from '../../contract/town-error.js';
import type { RoomHandlers } from '../route-types.js';

export type { XrpcDeps };

export function xrpcHandlers(deps: XrpcDeps): RoomHandlers<'xrpc' | 'didDocument' | 'guestDidDocument'> {
  const methods = xrpcMethods(deps);
  const repo = new RepositoryReads(deps.reads);
  const did = async () => (await repo.head())?.did ?? townDid(deps.config.host);
  return {
    xrpc: async (ctx) => {
      const nsid = ctx.params.nsid;
      const method = Object.hasOwn(methods, nsid) ? methods[nsid] : undefined;
      if (!method) {
        if (!isValidNsid(nsid)) throw new XrpcFailure('InvalidRequest', `${JSON.stringify(nsid.slice(0, 120))} is not an NSID`);
        throw new XrpcFailure('MethodNotImplemented', `${nsid} is not served here; the catalogue's xrpc route lists what is`);
      }
      const out = await method(ctx.state.query);
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
      const handle = handleOf(deps.config.host, name);
      const doc = didDocument(didOf(deps.config.host, name), isValidHandle(handle) ? handle : invalidHandle, deps.config.origin, deps.keys);
      return {
        ...doc,
        verificationMethod: doc.verificationMethod.filter((m) => m.id.endsWith('#atproto')).map((m) => ({ ...m, controller: doc.id, id: `${doc.id}#atproto` })),
      };
    },
  };
}
