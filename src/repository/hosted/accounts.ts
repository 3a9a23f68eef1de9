/**
 * Which hosted account a `repo` (or `did`) parameter names: a guest of this town by its did:web
 * (`did:web:<host>:guest:<name>`) or its handle (`<name>.<host without port>`), as AT Protocol
 * names an account either way. A name no guest of the town holds names no account.
 */
import { isValidHandle } from '@atproto/syntax';
import { didOf, handleOf, hostName, isGuestName } from '../../contract/names.js';
import type { EventStore } from '../../stores/event-store.js';
import { invalidHandle } from '../identity.js';

export interface HostedAccount {
  name: string;
  did: string;
  handle: string;
}

export function hostedAccount(host: string, name: string): HostedAccount {
  const handle = handleOf(host, name);
  return { name, did: didOf(host, name), handle: isValidHandle(handle) ? handle : invalidHandle };
}

/** The guest name a did or handle names in this town's form, whether or not that guest exists. */
export function accountName(host: string, text: string): string | undefined {
  const didPrefix = didOf(host, '');
  const handleSuffix = `.${hostName(host).toLowerCase()}`;
  const lower = text.toLowerCase();
  const name = text.startsWith(didPrefix) ? text.slice(didPrefix.length) : lower.endsWith(handleSuffix) ? lower.slice(0, -handleSuffix.length) : undefined;
  return name !== undefined && isGuestName(name) ? name : undefined;
}

/** The hosted account `text` names, when it is one of this town's guests. */
export async function findAccount(host: string, events: EventStore, text: string): Promise<HostedAccount | undefined> {
  const name = accountName(host, text);
  if (name === undefined || (await events.streamRevision(`guest-${name}`)) === undefined) return undefined;
  return hostedAccount(host, name);
}
