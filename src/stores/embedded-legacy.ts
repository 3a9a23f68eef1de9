/**
 * One-time upgrade of an events directory written by the first embedded store, which kept the
 * whole journal in LMDB (`log`: position -> event). Its events are copied, in position order,
 * into a new journal file; the old environment is kept beside it as `legacy-data.mdb`.
 *
 * Crash-safe by order: the new journal is written under a temporary name and synced before it is
 * renamed into place, so until then the old environment is still the record, and a crash
 * simply means the copy is made again on the next open.
 */
import fs from 'node:fs';
import path from 'node:path';
import { open } from 'lmdb';
import { encodeAppend, JOURNAL_MAGIC } from './embedded-frames.js';

/** What a row of the old `log` database held. */
interface LegacyEvent {
  id: string;
  stream: string;
  type: string;
  revision: number;
  data: string;
  metadata?: string;
  created: number;
}

/** Copies a legacy `log` database into `journalFile`; returns how many events it copied. */
export async function migrateLegacyEvents(dir: string, journalFile: string): Promise<number> {
  if (fs.existsSync(journalFile) || !fs.existsSync(path.join(dir, 'data.mdb'))) return 0;
  const env = open({ path: dir, maxDbs: 4, readOnly: true });
  let copied = 0;
  try {
    let log;
    try {
      // Read-only: a missing database comes back undefined instead of being created.
      log = env.openDB<LegacyEvent, number>({ name: 'log' }) as ReturnType<typeof env.openDB<LegacyEvent, number>> | undefined;
    } catch {
      return 0;
    }
    if (!log) return 0;
    const temporary = `${journalFile}.migrating`;
    const fd = fs.openSync(temporary, 'w');
    try {
      fs.writeSync(fd, JOURNAL_MAGIC);
      let chunk: Buffer[] = [];
      let chunkBytes = 0;
      for (const { key, value } of log.getRange({})) {
        if (key !== copied + 1) throw new Error(`legacy event log in ${dir} has position ${key} after ${copied}`);
        const { bytes } = encodeAppend(
          key,
          value.revision,
          value.stream,
          [{ id: value.id, type: value.type, data: undefined, metadata: undefined, json: value.data, metadataJson: value.metadata }],
          value.created,
        );
        chunk.push(bytes);
        chunkBytes += bytes.length;
        copied++;
        if (chunkBytes > 4 * 1024 * 1024) {
          fs.writeSync(fd, Buffer.concat(chunk));
          chunk = [];
          chunkBytes = 0;
        }
      }
      if (chunk.length) fs.writeSync(fd, Buffer.concat(chunk));
      fs.fdatasyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    if (copied === 0) {
      fs.rmSync(temporary, { force: true });
      return 0;
    }
    fs.renameSync(temporary, journalFile);
    const dirFd = fs.openSync(dir, 'r');
    try {
      fs.fsyncSync(dirFd);
    } finally {
      fs.closeSync(dirFd);
    }
  } finally {
    await env.close();
  }
  // The journal is the record now; the old environment stays for whoever wants to compare.
  fs.renameSync(path.join(dir, 'data.mdb'), path.join(dir, 'legacy-data.mdb'));
  fs.rmSync(path.join(dir, 'lock.mdb'), { force: true });
  return copied;
}
