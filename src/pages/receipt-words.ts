/**
 * A receipt in people's words: what happened, to what and by whom, and for a refusal why and
 * what to try instead; the receipt as a program reads it (class, spoken name, height, spell) one
 * click away in a folded <details>. The play page's announced receipt and the receipt page
 * (GET /receipt/{slug}) both draw it.
 */
import { e, seg, timeTag } from './layout.js';

/** The fields of a receipt the words are made of (a turn reply's or a read receipt's). */
export interface ReceiptFacts {
  status?: string;
  class?: string;
  line?: string;
  object?: string;
  method?: string;
  kind?: string;
  by?: string;
  at?: string;
  hintKind?: string;
  reading?: string;
  reason?: string;
  hint?: string;
  clause?: string;
  slug?: string | null;
  height?: number;
  /** What the turn let the caller see afterwards (a program's lines, e.g. a card's new version). */
  revealed?: string[];
}

/** Where a refusal says to look next (spec 7.2 `hintKind`), in words. */
function lookNext(f: ReceiptFacts): string {
  const card = f.object ? `<a href="/inspect/${seg(f.object)}">the rules of ${e(f.object)}</a>` : 'the card’s rules';
  switch (f.hintKind) {
    case 'source':
      return `The card’s own rules decide this: read ${card}.`;
    case 'self':
      return 'Check what you filled in, and try again.';
    case 'world':
      return 'Something in the town is in the way: look around and try again later.';
    case 'receipt':
      return 'Nothing changed. The details below say more.';
    default:
      return '';
  }
}

/** The headline of a receipt: what became of the spell. */
export const verdict = (status: string | undefined): string => (status === 'done' ? 'Done' : status === 'refused' ? 'Not done' : 'Noted');

/**
 * The receipt's words as HTML: `what` the line, `to`/`by`/`when` where known, a refusal's
 * reason and hint, and the technical receipt folded.
 */
export function receiptWords(f: ReceiptFacts): string {
  const facts: string[] = [];
  if (f.object) facts.push(`<dt>to</dt><dd><a href="/o/${seg(f.object)}">${e(f.object)}</a></dd>`);
  if (f.by) facts.push(`<dt>by</dt><dd>${e(f.by)}</dd>`);
  if (f.at) facts.push(`<dt>when</dt><dd>${timeTag(f.at)}</dd>`);
  const why = f.reading ?? f.reason;
  const refusal =
    f.status === 'refused'
      ? (why && why !== f.line ? `<p class="why"><strong>Why:</strong> ${e(why)}</p>` : '') +
        (f.hint ? `<p class="try"><strong>Try instead:</strong> ${e(f.hint)}</p>` : '') +
        (lookNext(f) ? `<p class="next">${lookNext(f)}</p>` : '')
      : '';
  const exact: string[] = [];
  if (f.class) exact.push(`<dt>class</dt><dd><code>${e(f.class)}</code></dd>`);
  if (f.clause) exact.push(`<dt>rule</dt><dd><code>${e(f.clause)}</code></dd>`);
  if (f.method) exact.push(`<dt>spell</dt><dd><code>${e(f.method)}</code></dd>`);
  if (f.slug) exact.push(`<dt>name</dt><dd><a href="/receipt/${seg(f.slug)}"><code class="slug">${e(f.slug)}</code></a></dd>`);
  if (f.height !== undefined) exact.push(`<dt>height</dt><dd><code>${e(f.height)}</code></dd>`);
  if (f.revealed?.length)
    exact.push(`<dt>seen after</dt><dd><ul class="revealed">${f.revealed.map((x) => `<li><code>${e(x)}</code></li>`).join('')}</ul></dd>`);
  return (
    `<p class="line">${e(f.line ?? '')}</p>` +
    (facts.length ? `<dl class="facts">${facts.join('')}</dl>` : '') +
    refusal +
    (exact.length ? `<details class="exact-receipt"><summary>the exact receipt</summary><dl>${exact.join('')}</dl></details>` : '')
  );
}
