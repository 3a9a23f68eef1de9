/**
 * How a town closes: what each area started is stopped newest first (the reactors and the
 * projectors before the world), then the read store, then the journal. A start that fails
 * closes what it had opened the same way, so no thread or file is left behind it.
 */
import type { Stores } from './stores.js';

/** What the areas started, in the order they started it; each stops its own part. */
export type Closers = (() => Promise<void>)[];

/** Closes a town that started; called again, it answers the first close. */
export function shutdown(closers: Closers, { events, reads }: Stores): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () =>
    (closing ??= (async () => {
      // Newest first: the reactor and the projectors stop before the world and the stores.
      for (const close of closers.reverse()) await close().catch(() => {});
      await reads.close();
      await events.close();
    })());
}

/** Closes what a start that failed had opened (its failure is the one the caller sees). */
export async function closeAfterFailure(closers: Closers, { events, reads }: Stores): Promise<void> {
  for (const close of closers.reverse()) await close().catch(() => {});
  await reads.close().catch(() => {});
  await events.close();
}
