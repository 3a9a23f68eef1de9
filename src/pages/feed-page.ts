/**
 * GET /feed: the newest threads, each post with its author and time, the town's answers with
 * their receipts, and (signed in) a post box and a reply box under each thread. A thread still
 * waiting for the town's answer makes the page look again: live through /live (the journal
 * moves when the town's turn lands); without the script, the page says to reload it. Guests are
 * named by their names, in what the town says too.
 */
import type { Caller } from '../contract/caller.js';
import { limits } from '../contract/limits.js';
import type { FeedPost, FeedThread } from '../queries/feed.js';
import { e, layout, timeTag } from './layout.js';
import { spoken } from './reads.js';

function postHtml(p: FeedPost, host: string | undefined): string {
  // a guest by the name it chose (a handle's first label), the whole handle on hover
  const who = p.town ? '<b>the town</b>' : `<span title="${e(p.author.handle)}">${e(p.author.handle.split('.')[0])}</span>`;
  const receipt = p.receipt ? ` · receipt <a href="/receipt/${encodeURIComponent(p.receipt.slug)}">${e(p.receipt.slug)}</a>` : '';
  return `<article class="post${p.town ? ' town' : ''}"><p class="h">${who} · ${timeTag(p.createdAt)}${receipt}</p><p>${e(spoken({ host }, p.text))}</p></article>`;
}

function box(caller: Caller | undefined, replyTo?: string): string {
  if (!caller) return '';
  const label = replyTo ? 'reply' : 'say to the town';
  const hidden = replyTo ? `<input type="hidden" name="reply_to" value="${e(replyTo)}">` : '';
  const id = replyTo ? `reply-${e(replyTo.slice(replyTo.lastIndexOf('/') + 1))}` : 'post';
  return (
    `<form method="post" action="/feed" class="say">${hidden}<label for="${id}">${label}</label> ` +
    `<textarea id="${id}" name="text" maxlength="${limits.feedPostChars}" required rows="2"></textarea> <button>post</button></form>`
  );
}

export function feedPage(caller: Caller | undefined, threads: FeedThread[], height: number, next?: string, host?: string): string {
  const waiting = threads.some((t) => !t.post.town && !t.replies.some((r) => r.town));
  const list = threads.length
    ? threads
        .map((t) => `<section class="thread">${postHtml(t.post, host)}${t.replies.map((r) => postHtml(r, host)).join('')}${box(caller, t.post.uri)}</section>`)
        .join('')
    : '<p>No posts yet.</p>';
  const more = next ? `<p><a href="/feed?before=${encodeURIComponent(next)}">older threads</a></p>` : '';
  const intro = caller
    ? '<p>Say something to the town: it answers under your post within seconds, with the receipt of its turn.</p>'
    : '<p><a href="/enter">Enter</a> to post; the town answers every post.</p>';
  const refresh = waiting ? '<p class="h" role="status">The town is answering: reload this page in a few seconds to read its answer.</p>' : '';
  return layout('the feed', `<h1>The feed</h1>${intro}${box(caller)}${refresh}${list}${more}`, { caller, liveHeight: height, waiting });
}
