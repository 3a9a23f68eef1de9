/** The library's Markdown as HTML: tables and code render; markup and script links in the text do not. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { libraryHtml } from '../../src/pages/library-page.js';

test('Markdown renders headings, tables and code; raw HTML is escaped and script links are refused', () => {
  const html = libraryHtml(
    '# lamp\n\n| spell | notes |\n|---|---|\n| light | `light` |\n\n<script>alert(1)</script>\n\n[x](javascript:alert(1)) <img src=x onerror=alert(1)>',
  );
  assert.match(html, '<h1>lamp</h1>');
  assert.match(html, '<table>');
  assert.match(html, '<code>light</code>');
  assert.not.match(html, '<script>');
  assert.match(html, '&lt;script&gt;');
  assert.not.match(html, 'href="javascript:');
  assert.not.match(html, '<img');
});

test.run();
