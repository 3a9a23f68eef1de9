/** Sealing an entry: its body given its content id and slug, and a turn's effects laid in. */
import { contentId } from './content-id.js';
import type { Entry, EntryBody } from './entry.js';
import type { TurnEffects } from './turn.js';

/** Gives an entry body its content id and slug (a new object; the body is left as it was). */
export function seal(body: EntryBody): Entry {
  const { cid, slug } = contentId(body);
  return { ...body, cid, slug };
}

/** `seal` for a body built here and used nowhere else: it becomes the entry (no copy). */
export function sealed(body: EntryBody, effects?: TurnEffects): Entry {
  if (effects) addEffects(body, effects);
  const { cid, slug } = contentId(body);
  const entry = body as Entry;
  entry.cid = cid;
  entry.slug = slug;
  return entry;
}

/** Adds the entry's effect fields, leaving out the empty ones (they do not change the content id). */
function addEffects(out: Partial<EntryBody>, e: TurnEffects): void {
  if (e.packages.length) out.packages = e.packages;
  if (e.made.length) out.made = e.made;
  if (e.writes.length) out.writes = e.writes;
  if (e.offers.length) out.offers = e.offers;
  if (e.sends.length) out.sends = e.sends;
  if (e.quiet) out.quiet = e.quiet;
}
