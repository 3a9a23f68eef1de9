/**
 * GET /receipt/{slug}: one receipt as a page for people, read as the reader may read it
 * (src/queries/receipt.ts: anyone's public part; a receipt about a card the reader may not see
 * is missing). The words are receipt-words.ts's; a receipt from before a carry says where its
 * whole lives; a name shared by several receipts lists them.
 */
import type { Caller } from '../contract/caller.js';
import { TownError } from '../contract/town-error.js';
import { receiptBySlug } from '../queries/receipt.js';
import type { WorldReads } from '../queries/world-reads.js';
import { e, layout, readerOf, seg } from './layout.js';
import { spoken } from './reads.js';
import { type ReceiptFacts, receiptWords, verdict } from './receipt-words.js';

export async function receiptPage(r: WorldReads, slug: string, caller: Caller | undefined): Promise<string> {
  let reply: ReceiptFacts & { carried?: unknown; message?: string };
  try {
    reply = (await receiptBySlug(r, slug, readerOf(caller), false)) as typeof reply;
  } catch (err) {
    if (!(err instanceof TownError) || err.cls !== 'ambiguous') throw err;
    const many = (err.extra.fields?.receipts ?? []) as { height: number; object?: string; method?: string }[];
    const items = many.map(
      (m) =>
        `<li>${m.object ? `${e(m.method ?? 'a spell')} on <a href="/o/${seg(m.object)}">${e(m.object)}</a>` : 'a receipt from before the archive'} <span class="h">#${e(m.height)}</span></li>`,
    );
    return layout(`receipt ${slug}`, `<h1>Receipts named ${e(slug)}</h1><p>More than one receipt has this name:</p><ul>${items.join('')}</ul>`, { caller });
  }
  if (reply.carried !== undefined) {
    return layout(
      `receipt ${slug}`,
      `<h1>An archived receipt</h1><p>${e(reply.message ?? '')}</p><p class="h"><code class="slug">${e(reply.slug ?? slug)}</code> <code>#${e(reply.height)}</code></p>`,
      { caller },
    );
  }
  const body =
    `<h1>Receipt: ${e(verdict(reply.status).toLowerCase())}</h1>` +
    `<section class="receipt ${e(reply.status ?? '')}" aria-label="the receipt">${receiptWords({ ...reply, line: spoken(r, reply.line ?? '') })}</section>` +
    (reply.object ? `<p><a href="/o/${seg(reply.object)}">the card ${e(reply.object)}</a> · <a href="/history">the chronicle</a></p>` : '');
  return layout(`receipt ${slug}`, body, { caller });
}
