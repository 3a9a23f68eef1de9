/**
 * The town as an AT Protocol account: its did:web, its handle, and the DID documents served at
 * `/.well-known/did.json` (the town) and `/guest/<name>/did.json` (a guest's path-form did:web,
 * `did:web:<host>:guest:<name>`, as src/contract/names.ts makes it).
 *
 * The repository's did comes from the host the town was founded with (the genesis entry), like
 * principals: a town moved to another origin keeps the identity its records were signed under.
 */
import { invalidHandle, townDid, townHandle } from '../contract/names.js';
import { commitMultikey, ed25519Multikey, type RepositoryKeys } from './keys.js';

export { invalidHandle, townDid, townHandle };

/** The fragment names of the two verification methods. */
export const commitKeyId = '#atproto';
export const receiptKeyId = '#receipts';

export interface DidDocument {
  '@context': string[];
  id: string;
  alsoKnownAs: string[];
  verificationMethod: { id: string; type: 'Multikey'; controller: string; publicKeyMultibase: string }[];
  service: { id: string; type: string; serviceEndpoint: string }[];
}

export interface PublicKeys {
  /** Multikey text of the K-256 commit key. */
  commit: string;
  /** Multikey text of the ed25519 receipt key. */
  receipt: string;
}

export function publicKeys(keys: RepositoryKeys): PublicKeys {
  return { commit: commitMultikey(keys), receipt: ed25519Multikey(keys.receipt.publicKey) };
}

/**
 * A did:web document: the keys as Multikey verification methods (`#atproto` is what AT Protocol
 * verifiers read commits with) and the repository service at the town's origin. A box with no
 * keys lists none.
 */
export function didDocument(did: string, handle: string, origin: string, keys: PublicKeys | undefined): DidDocument {
  const methods: DidDocument['verificationMethod'] = keys
    ? [
        { id: `${did}${commitKeyId}`, type: 'Multikey', controller: did, publicKeyMultibase: keys.commit },
        { id: `${did}${receiptKeyId}`, type: 'Multikey', controller: did, publicKeyMultibase: keys.receipt },
      ]
    : [];
  return {
    '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/multikey/v1'],
    id: did,
    alsoKnownAs: handle === invalidHandle ? [] : [`at://${handle}`],
    verificationMethod: methods,
    service: [{ id: '#atproto_pds', type: 'AtprotoPersonalDataServer', serviceEndpoint: origin }],
  };
}

/**
 * A guest's DID document (`did:web:<host>:guest:<name>`): the town's commit key speaks for the
 * accounts it hosts (it signs their commits and service JWTs), so it is the guest's `#atproto`
 * key, beside the same service. The receipt key is the town's alone.
 */
export function guestDidDocument(did: string, handle: string, origin: string, keys: PublicKeys | undefined): DidDocument {
  const doc = didDocument(did, handle, origin, keys);
  return {
    ...doc,
    verificationMethod: doc.verificationMethod
      .filter((m) => m.id.endsWith(commitKeyId))
      .map((m) => ({ ...m, controller: doc.id, id: `${doc.id}${commitKeyId}` })),
  };
}
