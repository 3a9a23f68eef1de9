/**
 * A secret kept in the data directory (the town's MAC key, the repository's signing keys): made
 * once, at first use, and read by every process sharing the directory. It lives with the
 * stores because it is data of the data directory, read by the configuration (src/config.ts)
 * and by the repository's keys (src/repository/keys.ts) alike.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The hex text of a 32-byte secret kept in `<dataDir>/<name>`, made at first use. Several
 * processes sharing the data directory share it: the first one's is written whole under a name
 * of its own, then linked into place, so another reading it meanwhile finds no file or the whole
 * secret, never an empty one (an `wx` open is visible before its write); a process whose link
 * finds the file there uses that one.
 */
export function secretFile(dataDir: string, name: string): string {
  mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, name);
  if (!existsSync(file)) {
    const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    writeFileSync(temp, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
    try {
      linkSync(temp, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      rmSync(temp, { force: true });
    }
  }
  return readFileSync(file, 'utf8').trim();
}
