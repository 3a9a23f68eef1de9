/**
 * The town's archive: one portable file holding a journal up to one position, and what is
 * needed to check it and to restore a working town from it (`npm run town -- export | import`,
 * and the archive a carry leaves of a past epoch). Gzip over JSON lines, so it streams both
 * ways, `zcat town.archive | head` shows what it is, and every line is one of:
 *
 *   1. `{"archive": Header}`                  first, once: format, host, the public keys
 *   2. `{"event": Event}`                     the journal in `$all` order, one event a line
 *   3. `{"secrets": {file: hex}}`             at most once: the keys a restored town needs
 *   4. `{"end": Trailer}`                     last, once: position, height, digests, checksum
 *
 * The trailer's `sha256` covers every byte before its line (uncompressed), so a truncated or
 * altered file is refused before anything is imported; the digests are those of every read
 * model folded from exactly these events, which an import must reproduce.
 */
import { createHash, type Hash } from 'node:crypto';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import type { RecordedEvent } from '../stores/event-store.js';
import type { Digest } from '../projections/digest.js';

export const archiveFormat = 'town-archive/1';

export interface ArchiveHeader {
  format: typeof archiveFormat;
  /** The town's host (what principals and dids name), as the genesis entry recorded it. */
  host: string | null;
  /** When the archive was written (ISO 8601): informational. */
  created: string;
  /** The repository's public keys (Multikey), null on a town that signs nothing. */
  publicKeys: { commit: string; receipt: string } | null;
  /** Whether a `secrets` line follows the events. */
  secrets: boolean;
}

/** One journal event; bigints as decimal text. `created` is the source store's, informational. */
export interface ArchiveEvent {
  position: string;
  stream: string;
  revision: string;
  id: string;
  type: string;
  created: number;
  data: unknown;
  metadata?: unknown;
}

export interface ArchiveTrailer {
  /** Events in the archive. */
  events: number;
  /** `$all` position of its last event (null: an empty journal). */
  position: string | null;
  /** The town world's height at that position: its last entry's (null: no world yet). */
  height: number | null;
  /** Each read model folded from exactly these events (npm run digest's lines). */
  digests: Digest[];
  /** sha-256 (hex) of every byte of the archive before this line, uncompressed. */
  sha256: string;
}

export type ArchiveLine = { archive: ArchiveHeader } | { event: ArchiveEvent } | { secrets: Record<string, string> } | { end: ArchiveTrailer };

export function archiveEvent(e: RecordedEvent): ArchiveEvent {
  return {
    position: e.position.toString(),
    stream: e.stream,
    revision: e.revision.toString(),
    id: e.id,
    type: e.type,
    created: e.created,
    data: e.data,
    ...(e.metadata !== undefined ? { metadata: e.metadata } : {}),
  };
}

/** The archive is not one this town can read: damaged, truncated, or of another format. */
export class ArchiveCorrupt extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ArchiveCorrupt';
  }
}

/** Writes lines, hashing every byte, so the trailer can name the checksum of what came before. */
export class LineWriter {
  private readonly hash: Hash = createHash('sha256');
  constructor(private readonly write: (text: string) => Promise<void> | void) {}

  async line(value: Exclude<ArchiveLine, { end: ArchiveTrailer }>): Promise<void> {
    const text = `${JSON.stringify(value)}\n`;
    this.hash.update(text);
    await this.write(text);
  }

  async end(trailer: Omit<ArchiveTrailer, 'sha256'>): Promise<void> {
    await this.write(`${JSON.stringify({ end: { ...trailer, sha256: this.hash.digest('hex') } })}\n`);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const decimal = /^(0|[1-9][0-9]*)$/;

function checkEvent(v: unknown, line: number): ArchiveEvent {
  const e = v as ArchiveEvent;
  if (
    !isObject(v) ||
    typeof e.position !== 'string' ||
    !decimal.test(e.position) ||
    typeof e.revision !== 'string' ||
    !decimal.test(e.revision) ||
    typeof e.stream !== 'string' ||
    typeof e.id !== 'string' ||
    typeof e.type !== 'string' ||
    typeof e.created !== 'number'
  ) {
    throw new ArchiveCorrupt(`line ${line}: not an event`);
  }
  return e;
}

/**
 * Reads an archive's lines in order, checking each line's shape, the order of the parts and,
 * at the end, the checksum and the count: `onEvent` hears each event as it is read, so the
 * caller may check first (onEvent doing nothing) and read again to import.
 */
export async function readArchive(
  input: Readable,
  on: { onEvent?(e: ArchiveEvent): Promise<void> | void } = {},
): Promise<{ header: ArchiveHeader; secrets: Record<string, string> | undefined; trailer: ArchiveTrailer }> {
  const hash = createHash('sha256');
  let header: ArchiveHeader | undefined;
  let secrets: Record<string, string> | undefined;
  let trailer: ArchiveTrailer | undefined;
  let events = 0;
  let last = -1n;
  let n = 0;
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  try {
    for await (const text of lines) {
      n++;
      if (trailer) throw new ArchiveCorrupt(`line ${n}: more after the end`);
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        throw new ArchiveCorrupt(`line ${n}: not JSON`);
      }
      if (!isObject(value)) throw new ArchiveCorrupt(`line ${n}: not an archive line`);
      if ('end' in value) {
        trailer = value.end as ArchiveTrailer;
        continue;
      }
      hash.update(`${text}\n`);
      if (!header) {
        const h = value.archive as ArchiveHeader | undefined;
        if (!isObject(h) || h.format !== archiveFormat) throw new ArchiveCorrupt(`not a town archive of format ${archiveFormat}`);
        header = h;
      } else if ('event' in value) {
        if (secrets) throw new ArchiveCorrupt(`line ${n}: an event after the secrets`);
        const e = checkEvent(value.event, n);
        const position = BigInt(e.position);
        if (position <= last) throw new ArchiveCorrupt(`line ${n}: positions out of order`);
        last = position;
        events++;
        await on.onEvent?.(e);
      } else if ('secrets' in value && isObject(value.secrets) && !secrets) {
        secrets = value.secrets as Record<string, string>;
      } else {
        throw new ArchiveCorrupt(`line ${n}: not an archive line`);
      }
    }
  } catch (error) {
    if (error instanceof ArchiveCorrupt) throw error;
    // zlib's own (a truncated or damaged gzip stream), or the file's.
    throw new ArchiveCorrupt(`unreadable: ${(error as Error).message}`);
  }
  if (!header) throw new ArchiveCorrupt('empty: not a town archive');
  if (!trailer || !isObject(trailer) || typeof trailer.sha256 !== 'string') throw new ArchiveCorrupt('truncated: no end line');
  if (trailer.sha256 !== hash.digest('hex')) throw new ArchiveCorrupt('checksum mismatch: the archive was altered or damaged');
  if (trailer.events !== events) throw new ArchiveCorrupt(`the end line counts ${trailer.events} events, the archive holds ${events}`);
  if (header.secrets !== (secrets !== undefined)) throw new ArchiveCorrupt('the header and the body disagree on secrets');
  return { header, secrets, trailer };
}
