/**
 * GET /o/{handle}/book: a resident's commonplace book (spec 4.6): what they wrote and what they
 * cited, newest first, 50 to a page (`?page=N`). What a resident writes in the town is their
 * posts to the feed and their turns (the spell cast on a card, and the line it left); what they
 * cite is the scratch receipts they kept in the town under their name (`cite` entries). A turn
 * on a card the reader may not see is left out, as everywhere.
 */
import type { Caller } from '../contract/caller.js';
import { TownError } from '../contract/town-error.js';
import { postUri } from '../events/feed.js';
import { handleOf, hostName, isGuestName, principalOf } from '../contract/names.js';
import { type FeedPostDoc, feedThreads } from '../projections/feed.js';
import { receiptDocs } from '../projections/receipts.js';
import type { WorldReads } from '../queries/world-reads.js';
import { e, layout, readerOf, seg, timeTag } from './layout.js';
import { carriedMark, spoken, visibleIdSet } from './reads.js';

export const bookPageSize = 50;
/** Receipts read at a time while filling a page with those the reader may see. */
const batch = 200;

/** A resident named by a book's address: the handle (`ann.<host>`), or the bare name. */
export function residentOf(host: string, handle: string): { name: string; principal: string; handle: string } | undefined {
  const suffix = `.${hostName(host)}`;
  const name = handle.endsWith(suffix) ? handle.slice(0, -suffix.length) : handle;
  return isGuestName(name) ? { name, principal: principalOf(host, name), handle: handleOf(host, name) } : undefined;
}

/** The book's address for a principal `guest:<host>:<name>` (the host may hold a port's colon). */
export function bookHref(principal: string): string | undefined {
  if (!principal.startsWith('guest:')) return undefined;
  const at = principal.lastIndexOf(':');
  const host = principal.slice('guest:'.length, at);
  const name = principal.slice(at + 1);
  return isGuestName(name) && host ? `/o/${seg(handleOf(host, name))}/book` : undefined;
}

interface Written {
  at: number;
  html: string;
}

/** The resident's turns and cites in the town, newest first, on cards the reader may see. */
async function entriesOf(r: WorldReads, principal: string, reader: string, wanted: number): Promise<Written[]> {
  const out: Written[] = [];
  const receipts = receiptDocs.in(r.reads);
  for (let skip = 0; out.length < wanted; skip += batch) {
    const docs = await receipts.find(
      { world: r.world, principal, kind: { $in: ['turn', 'cite'] } },
      { sort: { height: -1 }, limit: batch, ...(skip ? { skip } : {}) },
    );
    const seen = await visibleIdSet(
      r,
      reader,
      docs.filter((d) => d.kind === 'turn').map((d) => d.object),
    );
    for (const d of docs) {
      if (d.kind === 'turn' && !seen.has(d.object)) continue;
      const what =
        d.kind === 'cite'
          ? '<span class="tag">cited</span>'
          : `<a href="/o/${seg(d.object)}">${e(d.object)}</a>.<code>${e(d.method)}</code>${d.status === 'refused' ? ` <span class="tag">refused${d.class ? ` (${e(d.class)})` : ''}</span>` : ''}`;
      out.push({
        at: d.clock,
        html: `<li class="${e(d.status)}"><p class="h">${timeTag(d.clock)} · ${what} · <code class="slug">${e(d.slug)}</code>${carriedMark(r, d.height)}</p><p>${e(spoken(r, d.line))}</p></li>`,
      });
    }
    if (docs.length < batch) break;
  }
  return out;
}

/** The resident's posts and replies to the feed, newest first. */
async function postsOf(r: WorldReads, host: string, principal: string): Promise<Written[]> {
  const threads = await feedThreads.in(r.reads).find({ $or: [{ 'post.author.principal': principal }, { 'replies.author.principal': principal }] });
  const posts: FeedPostDoc[] = threads.flatMap((t) => [t.post, ...t.replies]).filter((p) => p.author?.principal === principal);
  return posts.map((p) => {
    const thread = postUri(host, p.root);
    const kind = p.replyTo ? 'replied in the feed' : 'said to the town';
    return {
      at: p.at,
      html: `<li class="post"><p class="h">${timeTag(p.at)} · <a href="/feed?thread=${encodeURIComponent(thread)}">${kind}</a></p><p>${e(p.text)}</p></li>`,
    };
  });
}

export async function bookPage(
  r: WorldReads,
  host: string,
  handle: string,
  caller: Caller | undefined,
  q: { page?: string },
  avatar: string | undefined,
): Promise<string> {
  const resident = residentOf(host, handle);
  if (!resident || avatar === undefined) {
    throw new TownError('unknown', `no resident ${JSON.stringify(handle.slice(0, 80))} in this town`, {
      hint: 'a book belongs to a guest who has entered the town',
    });
  }
  const page = Math.max(1, Number(q.page ?? 1));
  const wanted = page * bookPageSize + 1;
  const written = [...(await entriesOf(r, resident.principal, readerOf(caller), wanted)), ...(await postsOf(r, host, resident.principal))].sort(
    (a, b) => b.at - a.at,
  );
  const shown = written.slice((page - 1) * bookPageSize, page * bookPageSize);
  const pager = [
    page > 1 ? `<a href="?page=${page - 1}" rel="prev">newer</a>` : '',
    written.length > page * bookPageSize ? `<a href="?page=${page + 1}" rel="next">older</a>` : '',
  ].filter(Boolean);
  const body =
    `<h1>${e(resident.name)}: a commonplace book</h1>` +
    `<p>What ${e(resident.name)} wrote in the town and kept from elsewhere, newest first. <a href="/o/${seg(avatar)}">${e(resident.name)}'s avatar</a></p>` +
    (shown.length ? `<ol class="book">${shown.map((w) => w.html).join('')}</ol>` : `<p>${page > 1 ? 'Nothing further back.' : 'Nothing written yet.'}</p>`) +
    (pager.length ? `<p class="pager">page ${page}: ${pager.join(' · ')}</p>` : '');
  return layout(`${resident.name}'s book`, body, { caller });
}
