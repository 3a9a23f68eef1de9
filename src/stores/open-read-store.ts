/**
 * Chooses the ReadStore adapter: MongoDB when a `mongodb://` or `mongodb+srv://` url is given
 * (the app passes MONGO_URL), otherwise the embedded LMDB store under the data directory.
 */
import type { ReadStore } from './read-store.js';
import { openEmbeddedReadStore } from './embedded/read-store.js';
import { DiskGuard } from './embedded/disk-guard.js';

export interface OpenReadStoreOptions {
  /** `mongodb://…` connection string; empty or absent means the embedded store. */
  url?: string;
  /** The app's data directory (./data by default, or TOWN_DATA). */
  dataDir: string;
  /** MongoDB database; default: the one named in the url, else `town`. */
  database?: string;
  /** The free-space watermark the embedded store checks before each unit (embedded/disk-guard.ts). */
  diskGuard?: DiskGuard;
  /** Else the watermark in bytes, for a store opened in another thread (a guard is not cloned). */
  minFreeBytes?: number;
  /** Embedded: other processes (projector workers) fold into the store too (EmbeddedReadStoreOptions.shared). */
  shared?: boolean;
}

export async function openReadStore(options: OpenReadStoreOptions): Promise<ReadStore> {
  const url = options.url?.trim();
  if (!url) {
    const guard = options.diskGuard ?? (options.minFreeBytes !== undefined ? new DiskGuard(options.dataDir, options.minFreeBytes) : undefined);
    return openEmbeddedReadStore({ dataDir: options.dataDir, ...(guard ? { diskGuard: guard } : {}), ...(options.shared ? { shared: true } : {}) });
  }
  // Anything else is a configuration mistake, refused rather than silently run embedded.
  if (!/^mongodb(\+srv)?:\/\//.test(url)) throw new TypeError('MONGO_URL must start with mongodb:// or mongodb+srv://');
  // Loaded only when asked for: the driver takes ~0.2 s to load, a tenth of an embedded start.
  const { openMongoReadStore } = await import('./mongo/read-store.js');
  return openMongoReadStore({ url, database: options.database });
}
