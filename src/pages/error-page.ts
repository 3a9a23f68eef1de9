/**
 * A failure on a page, for a person: the town's frame and navigation, what happened in
 * plain words (the front's own message, but where it speaks of routes), what to do next, and
 * the status and class in a small code line. A 429 or 503 page loads itself again
 * once `Retry-After` has passed (town.js counts down; without script, a link asks again).
 */
import { errorClassOf, type ErrorClass } from '../contract/errors.js';
import type { TownError } from '../contract/town-error.js';
import { localPath } from './door-page.js';
import { e, layout, type Reader } from './layout.js';

interface Telling {
  title: string;
  /** What to do next, as HTML (only fixed text and links: nothing from the request). */
  next: (signedIn: boolean) => string;
}

const lookAround = '<a href="/town">the town</a>, <a href="/map">the map</a> or <a href="/">home</a>';
const enterOr = (signedIn: boolean, rest: string) => (signedIn ? rest : `<a href="/enter">Enter</a> to play, or go to ${lookAround}.`);

const tellings: Partial<Record<ErrorClass, Telling>> = {
  unknown: { title: 'Nothing here by that name', next: () => `It may be hidden from you, or it may never have been. Try ${lookAround}.` },
  unknownRoute: { title: 'No such page', next: () => `Check the address, or go to ${lookAround}.` },
  rateLimited: {
    title: 'Too many at once',
    next: () => 'Nothing was done. This page loads itself again when the wait is over; a spell or a post you sent was not cast, so send it again then.',
  },
  busy: { title: 'The town is busy', next: () => 'This page loads itself again in a moment.' },
  notImplemented: { title: 'Not built yet', next: () => `This part of the town is not built yet; the rest is open: ${lookAround}.` },
  unauthenticated: { title: 'Sign in first', next: (signedIn) => enterOr(signedIn, `Your session has ended: <a href="/enter">enter again</a>.`) },
  denied: { title: 'Not shown to you', next: () => `Go back to the page you came from, or to ${lookAround}.` },
  methodNotAllowed: { title: 'Not a way to ask for this page', next: () => `Follow a link instead: ${lookAround}.` },
  badJson: { title: 'That could not be read', next: () => 'Go back, check what you typed, and send it again.' },
  hostRequest: { title: 'That could not be read', next: () => 'Go back, check what you typed, and send it again.' },
  bodyTooLarge: { title: 'Too much at once', next: () => 'Go back and send less.' },
  unspellable: { title: 'No card can have that name', next: () => `Check the address, or go to ${lookAround}.` },
  identity: { title: 'That did not let you in', next: () => '<a href="/enter">Try again at the door</a>.' },
  hostTimeout: {
    title: 'The town took too long',
    next: () => 'What you asked for may still have happened: look at the card before you cast again.',
  },
  hostUnavailable: { title: 'The town is not answering', next: () => 'Try again in a moment.' },
  internal: { title: 'Something went wrong here', next: () => `Nothing was decided. Try again, or go to ${lookAround}.` },
};

/** Seconds a page should wait before it loads itself again, when the failure says so. */
function retryAfter(err: TownError): number | undefined {
  if (err.cls !== 'rateLimited' && err.cls !== 'busy') return undefined;
  const header = Object.entries(err.extra.headers ?? {}).find(([k]) => k.toLowerCase() === 'retry-after')?.[1];
  const seconds = Number(header);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : 5;
}

/** `self`: the address asked for, offered again as a link on a page that says to retry. */
export function errorPage(err: TownError, caller: Reader | undefined, self = '/'): { status: number; headers: Record<string, string>; html: string } {
  const spec = errorClassOf(err.cls);
  const telling = tellings[err.cls] ?? { title: 'That did not work', next: () => `Go back, or go to ${lookAround}.` };
  const wait = retryAfter(err);
  const again = localPath(self) ?? '/';
  // the front's own words for a path or method no route takes speak of routes: said plainly here
  const problem = /^no route\b/.test(err.message)
    ? err.cls === 'unknownRoute'
      ? `There is no page at ${again.split('?')[0]}.`
      : 'This address does not answer that kind of request.'
    : err.message;
  const hint = err.extra.hint ? `<p>${e(err.extra.hint)}</p>` : '';
  const waiting =
    wait !== undefined
      ? `<p class="wait" role="status">Trying again in <span id="retry-in">${e(Math.max(1, Math.ceil(wait)))}</span> s. <a href="${e(again)}">Try again now</a></p>`
      : '';
  const requestId =
    err.cls === 'internal' && typeof err.extra.fields?.requestId === 'string' ? `<p class="h">request ${e(err.extra.fields.requestId)}</p>` : '';
  const body =
    `<h1>${e(telling.title)}</h1><p class="problem">${e(problem)}</p>${hint}` +
    `<p>${telling.next(caller !== undefined)}</p>${waiting}${requestId}` +
    `<p class="h"><code>${e(spec.http)} ${e(err.cls)}</code></p>`;
  return {
    status: spec.http,
    headers: { ...err.extra.headers },
    html: layout(telling.title, body, { caller, retryAfterSeconds: wait, mainClass: 'error' }),
  };
}
