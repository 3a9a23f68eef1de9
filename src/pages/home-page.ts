/** GET /: the home page: where to go, and for a signed-in guest where they stand. */
import type { Caller } from '../contract/caller.js';
import { e, layout, seg } from './layout.js';

export function homePage(caller: Caller | undefined, height: number, avatar: string | undefined): string {
  const you = caller
    ? `<p>Welcome back, <span title="${e(caller.handle)}">${e(caller.name)}</span>.${avatar ? ` <a href="/play/${seg(avatar)}">your avatar</a> ·` : ''} <a href="/town">where to go</a></p>`
    : '<p>You are not signed in: you can look around; <a href="/enter">enter</a> to play.</p>';
  const body =
    '<h1>Town</h1><p>A shared world of programmable cards. Guests cast spells on cards as turns; every turn leaves a receipt.</p>' +
    you +
    '<ul class="go"><li><a href="/town">the town</a>: every room and who is in it</li>' +
    '<li><a href="/map">the map</a>: doors between rooms</li>' +
    '<li><a href="/history">the chronicle</a>: what happened, a day a page</li>' +
    '<li><a href="/kinds">kinds</a> and <a href="/library">the library</a>: what cards are made of</li>' +
    '<li><a href="/lib">modules</a>: the source the town runs</li>' +
    '<li><a href="/feed">the feed</a> · <a href="/AGENTS.md">the guide for programs</a></li></ul>' +
    `<p class="h">journal height ${e(height)}</p>`;
  return layout('Town', body, { caller });
}
