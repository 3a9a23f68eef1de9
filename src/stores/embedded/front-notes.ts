/**
 * Read-your-writes across the fronts of one box (docs/decisions/embedded-fronts.md): each front
 * notes, per principal, the `$all` position its latest turn's answer depended on
 * (src/queries/fresh.ts), and a read by that principal on any front waits for its projection to
 * pass the greater of its own note and the one kept here. The notes are a small LMDB environment
 * under `<TOWN_DATA>/fronts`, shared by every process of the box, written without sync: a note
 * only matters while the guest's next read is on its way, and is worth nothing after a restart.
 */
import fs from 'node:fs';
import path from 'node:path';
import { open, type RootDatabase } from 'lmdb';

export class FrontNotes {
  private constructor(private readonly env: RootDatabase<string, string>) {}

  static open(dataDir: string): FrontNotes {
    const dir = path.join(dataDir, 'fronts');
    fs.mkdirSync(dir, { recursive: true });
    // One small map; noSync: the OS has every write, and a crash only forgets notes.
    return new FrontNotes(open<string, string>({ path: dir, noSync: true, overlappingSync: false }));
  }

  /** The principal's note (a position), if another front or this one made one. */
  get(principal: string): bigint | undefined {
    const at = this.env.get(principal);
    return at === undefined ? undefined : BigInt(at);
  }

  /**
   * Keeps the principal's note when it is newer than the one kept. Written before the turn's
   * answer leaves this front, so the guest's next read, on whichever front, finds it.
   */
  note(principal: string, position: bigint): void {
    this.env.transactionSync(() => {
      const had = this.env.get(principal);
      if (had === undefined || BigInt(had) < position) this.env.putSync(principal, position.toString());
    });
  }

  close(): Promise<void> {
    return this.env.close();
  }
}
