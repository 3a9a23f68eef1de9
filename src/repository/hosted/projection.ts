/**
 * The hosted accounts' repositories as a read model, folded from their streams (`hosted-<name>`):
 *
 *   hosted.records  _id `<did> <collection>/<rkey>`: a record, its CID and its value (JSON text:
 *                   a value's `$type` is no field name MongoDB stores)
 *   hosted.heads    _id `<did>`: the account's signed head (the commit's CID, tree root, rev and
 *                   signature), its record count and the stream revision folded
 *
 * The tree's nodes are not kept: an account holds at most 256 records, and its tree is a function
 * of their CIDs, built when a CAR is asked for (hosted/tree.ts). Idempotent: an event at or below
 * the head's stream revision is skipped.
 */
import { decodeHostedEvent, hostedWrittenType } from '../../events/hosted.js';
import type { Projection } from '../../projections/projection.js';
import { readModel } from '../../projections/read-model.js';
import type { RecordedEvent } from '../../stores/event-store.js';
import type { Doc, Unit } from '../../stores/read-store.js';

export interface HostedRecordDoc extends Doc {
  did: string;
  collection: string;
  rkey: string;
  cid: string;
  /** The value as JSON text (AT Protocol's JSON form). */
  json: string;
}

export interface HostedHeadDoc extends Doc {
  did: string;
  name: string;
  commit: string;
  data: string;
  rev: string;
  sig: string;
  records: number;
  /** The stream revision of the last event folded. */
  revision: number;
}

export const hostedModel = readModel('hosted');
export const hostedRecordDocs = hostedModel.collection<HostedRecordDoc>('records');
export const hostedHeadDocs = hostedModel.collection<HostedHeadDoc>('heads');

export const hostedRecordId = (did: string, collection: string, rkey: string) => `${did} ${collection}/${rkey}`;

export function hostedProjection(): Projection {
  return {
    name: hostedModel.name,
    // Bump when `apply` changes what it writes.
    version: 1,
    collections: [hostedRecordDocs.name, hostedHeadDocs.name],
    handles: (type) => type === hostedWrittenType,
    async apply(event: RecordedEvent, unit: Unit): Promise<void> {
      const { did, ops, commit } = decodeHostedEvent(event).data;
      const heads = hostedHeadDocs.in(unit);
      const head = await heads.findOne({ _id: did });
      const revision = Number(event.revision);
      if (head && head.revision >= revision) return;
      const records = hostedRecordDocs.in(unit);
      let count = head?.records ?? 0;
      for (const op of ops) {
        const _id = hostedRecordId(did, op.collection, op.rkey);
        if (op.action === 'delete') {
          count -= await records.deleteMany({ _id });
          continue;
        }
        if (op.action === 'create') count += 1;
        await records.replaceOne(
          { _id },
          { _id, did, collection: op.collection, rkey: op.rkey, cid: op.cid!, json: JSON.stringify(op.value) } satisfies HostedRecordDoc,
          { upsert: true },
        );
      }
      const name = event.stream.slice(event.stream.indexOf('-') + 1);
      await heads.replaceOne(
        { _id: did },
        { _id: did, did, name, commit: commit.cid, data: commit.data, rev: commit.rev, sig: commit.sig, records: count, revision } satisfies HostedHeadDoc,
        { upsert: true },
      );
    },
  };
}
