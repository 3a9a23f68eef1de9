/** GET /style/: the style specimen: every element the pages use, drawn with the stylesheet. */
import type { Caller } from '../contract/caller.js';
import { e, layout } from './layout.js';
import { receiptWords } from './receipt-words.js';

export function stylePage(caller?: Caller): string {
  const body =
    '<h1>style specimen</h1><p>Every element the pages use, as the stylesheet draws it.</p>' +
    '<h2>a card</h2><p class="paint">the lamp (lit): 3 measures of oil</p>' +
    '<details class="exact" open><summary>the exact card</summary><dl><dt>id</dt><dd>lamp</dd><dt>version</dt><dd>4</dd></dl>' +
    '<ol class="lines"><li>ann lights the lamp</li><li>bob fills the lamp</li></ol></details>' +
    `<section class="receipt done"><h2>Done</h2>${receiptWords({ status: 'done', line: 'ann lights the lamp', object: 'lamp', by: 'ann', at: '2026-12-06T19:40:00.000Z', method: 'light', slug: 'amber-fox-river', height: 12, revealed: ['lamp: lit'] })}</section>` +
    `<section class="receipt refused"><h2>Not done</h2>${receiptWords({ status: 'refused', class: 'cardRefused', line: 'refused closed: the door is closed', object: 'door-square-library', by: 'ann', reading: 'the door is closed', hint: 'open the door first', hintKind: 'source', clause: 'closed', method: 'go' })}</section>` +
    '<form class="reply"><label for="s">say to lamp</label><textarea id="s" rows="2">fill measures=3</textarea><button type="button">reply</button></form>' +
    '<form class="spell"><button type="button">fill</button> <label>measures <input type="number"></label> <code class="template">fill measures=&lt;natural 0..9&gt;</code></form>' +
    '<h2>source</h2><pre class="source"><span id="L1"><a class="ln" href="#L1">1</a> type Lamp:</span>\n<span id="L2"><a class="ln" href="#L2">2</a>   lit: Boolean</span></pre>' +
    '<h2>a table</h2><table class="map"><thead><tr><th>from</th><th>door</th><th>to</th></tr></thead><tbody><tr><td>square</td><td>the door to the library (open)</td><td>library</td></tr></tbody></table>' +
    `<p>Escaped text: ${e('<script>alert(1)</script>')}</p>`;
  return layout('style', body, { caller });
}
