/**
 * Guest names and the identifiers derived from them, as the repository's XRPC methods import
 * them. They are defined in src/contract/names.ts, below the cards, events and commands that
 * use them too; this module hands the same functions on.
 */
export { didOf, hostName, isGuestName } from '../contract/names.js';
