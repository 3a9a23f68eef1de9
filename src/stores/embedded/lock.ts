/**
 * One owner for an events directory. The journal is written at offsets its owner keeps in
 * memory, and opening it cuts off what looks like a torn tail, so a second store on the same
 * directory (another process, or the same one twice) would destroy appends in flight. The lock
 * file holds the owner's pid and boot id; a lock whose process is gone, or that was taken on an
 * earlier boot, is stale and taken over.
 */
import fs from 'node:fs';
import path from 'node:path';

const LOCK_FILE = 'journal.lock';
const held = new Set<string>();

interface Owner {
  pid: number;
  boot: string | undefined;
}

/** Takes the directory or throws; returns the release. */
export function lockEventsDirectory(dir: string): () => void {
  const key = fs.realpathSync(dir);
  if (held.has(key)) throw new Error(`the event store in ${dir} is already open in this process`);
  const file = path.join(dir, LOCK_FILE);
  const me: Owner = { pid: process.pid, boot: bootId() };
  for (let attempt = 0; ; attempt++) {
    try {
      fs.writeFileSync(file, JSON.stringify(me), { flag: 'wx' });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw error;
      const owner = readOwner(file);
      if (owner && isAlive(owner, me)) {
        throw new Error(`the event store in ${dir} is open in process ${owner.pid}; it belongs to one process at a time`);
      }
      fs.rmSync(file, { force: true });
    }
  }
  held.add(key);
  return () => {
    held.delete(key);
    fs.rmSync(file, { force: true });
  };
}

function readOwner(file: string): Owner | undefined {
  try {
    const owner = JSON.parse(fs.readFileSync(file, 'utf8')) as Owner;
    return Number.isInteger(owner.pid) ? owner : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(owner: Owner, me: Owner): boolean {
  // Pids are reused across boots, and this process is not holding it (see `held`).
  if (owner.boot !== me.boot || owner.pid === me.pid) return false;
  return processAlive(owner.pid);
}

/** Whether a process of this machine is running (one we may not signal is running too). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The live process that owns an events directory, if any: a follower reads beside it. */
export function eventsOwner(dir: string): number | undefined {
  const owner = readOwner(path.join(dir, LOCK_FILE));
  if (!owner) return undefined;
  const me: Owner = { pid: process.pid, boot: bootId() };
  return isAlive(owner, me) || (owner.pid === me.pid && held.has(fs.realpathSync(dir))) ? owner.pid : undefined;
}

export function bootId(): string | undefined {
  try {
    return fs.readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}
