/**
 * What an xrpc method of the repository is (spec 4.5): its NSID and a handler that takes the
 * town's reads and the request's query parameters and answers an object (JSON) or a CAR.
 * Failures are the AT Protocol errors of spec 7.3 (`XrpcFailure`). One file of this folder is
 * one method, named by its NSID, as the AT Protocol PDS lays out its api folder.
 */
import type { Programs } from '../../cards/kernel/programs.js';
import type { Past } from '../../cards/kernel/past.js';
import type { Clock } from '../../contract/clock.js';
import type { TownConfig } from '../../contract/town-config.js';
import type { EventStore } from '../../stores/event-store.js';
import type { ReadStore } from '../../stores/read-store.js';
import type { HostedReads } from '../hosted/reads.js';
import type { PublicKeys } from '../identity.js';
import type { Params } from './params.js';

/** A CAR reply: the bytes, served as application/vnd.ipld.car. */
export interface CarReply {
  car: Uint8Array;
}

export type XrpcReply = object | CarReply;

export interface XrpcDeps {
  reads: ReadStore;
  events: EventStore;
  programs: Programs;
  clock: Clock;
  config: TownConfig;
  /** The repository's public keys (undefined on a box that does not sign). */
  keys: PublicKeys | undefined;
  /** Where subscribeRepos is served as a WebSocket (undefined: no firehose listener here). */
  firehoseUrl: () => string | undefined;
  /** The hosted accounts' repositories (hosted/reads.ts). */
  hosted: HostedReads;
  /** The town's carried past, once a carry began its epoch: receipts before it are pointers. */
  past?: () => Past | undefined;
}

export interface XrpcMethod {
  nsid: string;
  handler: (deps: XrpcDeps, params: Params) => Promise<XrpcReply>;
}
