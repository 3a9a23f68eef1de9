/**
 * Guest names and the identifiers derived from them (spec 2.1, 2.2). A guest is known by its
 * name inside one town; the town's host turns the name into a principal, a handle and a did,
 * and is itself known by a handle and a did.
 */
import { INVALID_HANDLE, isValidHandle } from '@atproto/syntax';

const guestNamePattern = /^[a-z][a-z0-9-]{0,31}$/;

/** Spec 2.1: lowercase initial, at most 32 characters, letters/digits/hyphens, last a letter or digit. */
export function isGuestName(name: unknown): name is string {
  return typeof name === 'string' && guestNamePattern.test(name) && !name.endsWith('-');
}

export function principalOf(host: string, name: string): string {
  return `guest:${host}:${name}`;
}

/** The host without its port: handles are DNS names, and a DNS name carries no port. */
export function hostName(host: string): string {
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    return end < 0 ? host : host.slice(0, end + 1);
  }
  const colon = host.indexOf(':');
  return colon < 0 ? host : host.slice(0, colon);
}

/** `<name>.<host without port>`: the guest reads as a subdomain of the town. */
export function handleOf(host: string, name: string): string {
  return `${name}.${hostName(host)}`;
}

/**
 * did:web path form, `did:web:<host>:guest:<name>`. did:web writes a port's colon as %3A, so
 * the host's own colon cannot be read as a path separator.
 */
export function didOf(host: string, name: string): string {
  return `did:web:${host.replaceAll(':', '%3A')}:guest:${name}`;
}

/** The town's own did:web, `did:web:<host>` (the port's colon written %3A as did:web requires). */
export function townDid(host: string): string {
  return `did:web:${host.replaceAll(':', '%3A')}`;
}

/** AT Protocol's name for a handle that does not verify (an IP address, `localhost`). */
export const invalidHandle = INVALID_HANDLE;

/** The town's handle: its host without the port, when that is a valid handle. */
export function townHandle(host: string): string {
  const name = hostName(host).toLowerCase();
  return isValidHandle(name) ? name : invalidHandle;
}

export interface GuestIdentity {
  name: string;
  principal: string;
  handle: string;
  did: string;
}

export function identityOf(host: string, name: string): GuestIdentity {
  return { name, principal: principalOf(host, name), handle: handleOf(host, name), did: didOf(host, name) };
}
