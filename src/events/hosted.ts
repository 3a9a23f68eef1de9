/**
 * Events of the hosted accounts' repositories (spec 4.5: every guest is a hosted account of the
 * town). One stream per account, `hosted-<guest name>`; each event is one signed commit of that
 * account's repository: the record operations it made and the commit that signs them. The record
 * values are in the event (the journal is the repository's only store; the read model and every
 * tree are rebuilt from it), as JSON in AT Protocol's JSON form.
 */
import * as t from 'io-ts';
import type { RecordedEvent } from '../stores/event-store.js';
import { decodeEvent } from './identity.js';

export const hostedStreamPrefix = 'hosted-';
export const hostedStream = (name: string) => `${hostedStreamPrefix}${name}`;

/** One record operation as committed: the action it came to be, and the record's value and CID. */
export const HostedOp = t.intersection([
  t.type({ action: t.keyof({ create: null, update: null, delete: null }), collection: t.string, rkey: t.string }),
  t.partial({ cid: t.string, value: t.unknown }),
]);
export type HostedOp = t.TypeOf<typeof HostedOp>;

/** The signed commit: what `com.atproto.sync.getLatestCommit` answers, and its signature. */
export const HostedCommit = t.type({
  /** The commit block's CID. */
  cid: t.string,
  /** The tree's root CID. */
  data: t.string,
  rev: t.string,
  /** base64 of the K-256 signature over the unsigned commit. */
  sig: t.string,
});
export type HostedCommit = t.TypeOf<typeof HostedCommit>;

export const hostedWrittenType = 'HostedRecordsWritten';

export const HostedRecordsWritten = t.type({
  type: t.literal(hostedWrittenType),
  data: t.type({
    did: t.string,
    ops: t.array(HostedOp),
    commit: HostedCommit,
    /** Milliseconds since the epoch, from the clock passed into the command. */
    at: t.number,
  }),
});
export type HostedRecordsWritten = t.TypeOf<typeof HostedRecordsWritten>;
export const HostedEvent = HostedRecordsWritten;
export type HostedEvent = HostedRecordsWritten;

export const decodeHostedEvent = (recorded: RecordedEvent): HostedEvent => decodeEvent(HostedEvent, recorded);
