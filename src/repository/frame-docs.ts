/**
 * The firehose's #commit frames as the repository's read model keeps them: written by the
 * repository's projection (projection.ts) and by the hosted accounts' (hosted/frames.ts), read
 * by the firehose (firehose.ts). Their own module, so those three share the shape without
 * importing each other.
 */
import type { Doc } from '../stores/read-store.js';

export interface FrameOp {
  action: 'create' | 'update' | 'delete';
  path: string;
  cid: string | null;
  prev?: string;
}

/** A #commit frame as kept; `blocks` is the CAR (base64) of the commit's new and proving blocks. */
export interface FrameDoc extends Doc {
  seq: number;
  /** The repository the commit is of: a hosted account's did (hosted/frames.ts); absent, the town's. */
  repo?: string;
  commit: string;
  rev: string;
  since: string | null;
  prevData?: string;
  ops: FrameOp[];
  blocks: string;
  time: string;
  /** Height of the last entry the commit covers. */
  height: number;
}
