/**
 * The guest door's pages (spec 4.6): /enter with its forms, the page that shows a new key once,
 * and /leave, each in the town's frame with its navigation. The arrival proof runs from
 * /static/arrive.js (the front's policy allows no inline script).
 */
import type { Challenge } from '../commands/challenge.js';
import type { GuestIdentity } from '../contract/names.js';
import { e, layout, type Reader } from './layout.js';

/**
 * The guest name rule (spec 2.1) as an HTML `pattern`. Browsers compile patterns with the `v`
 * flag, where a bare `-` in a class is an error (the whole check is then dropped): it is escaped.
 */
export const guestNameInputPattern = '[a-z](?:[a-z0-9\\-]{0,30}[a-z0-9])?';

export interface EnterPageOptions {
  /** The challenge for the arrival form; only an open town has one. */
  challenge?: Challenge;
  /** A refusal to show above the forms, with what the guest had typed. */
  error?: { message: string; hint?: string };
  values?: { code?: string; name?: string };
  /** Where a signed-in browser goes next; kept only when it is a path of this town. */
  next?: unknown;
  /** Already signed in: the page says so (and still lets them sign in as someone else). */
  caller?: Reader;
  /** A town of the earlier shape (spec 9): no invitations, no arrivals; a handle is claimed by challenge. */
  earlier?: boolean;
}

/** A path of this town to go on to after signing in; anything else (another site) is dropped. */
export function localPath(next: unknown): string | undefined {
  return typeof next === 'string' && /^\/(?![/\\])[^\s\\]*$/.test(next) && next.length <= 2048 ? next : undefined;
}

const nameInput = (id: string, value: string | undefined, required: boolean) =>
  `<label for="${id}">Name</label> <input id="${id}" name="name"${required ? ' required' : ''} pattern="${e(guestNameInputPattern)}" maxlength="32"` +
  ` autocomplete="username" autocapitalize="none" spellcheck="false" aria-describedby="${id}-rule" value="${e(value ?? '')}">` +
  ` <span class="hint" id="${id}-rule">lowercase letters, digits and hyphens; a letter first; at most 32</span>`;

export function enterPage(options: EnterPageOptions = {}): string {
  const { challenge, error, values = {}, caller } = options;
  const next = localPath(options.next);
  const goOn = next ? `<input type="hidden" name="next" value="${e(next)}">` : '';
  const problem = error ? `<p class="problem" role="alert"><strong>${e(error.message)}</strong>${error.hint ? ` — ${e(error.hint)}` : ''}</p>` : '';
  const already = caller
    ? `<p class="note">You are signed in as <span title="${e(caller.handle)}">${e(caller.name)}</span>: <a href="/play/">play</a> or <a href="/leave">sign out</a>. The forms below sign this browser in as someone else.</p>`
    : '';
  const invitation = options.earlier
    ? '<section aria-labelledby="with-handle"><h2 id="with-handle">With a handle</h2>' +
      '<p>This town takes no invitations: a program claims a handle with <code>POST /AGENTS.md/challenge</code>, posts the text it gets, and confirms with <code>POST /AGENTS.md/verify</code>. Then sign in below with the key the challenge gave.</p></section>'
    : '<section aria-labelledby="with-invitation"><h2 id="with-invitation">With an invitation</h2>' +
      '<form method="post" action="/enter" class="door">' +
      `<p><label for="code">Invitation code</label> <input id="code" name="code" required autocomplete="off" spellcheck="false" value="${e(values.code ?? '')}"></p>` +
      `<p>${nameInput('invite-name', values.name, false)}</p>` +
      '<p>Leave the name empty if your code already names you.</p><p><button>Accept</button></p></form></section>';
  const key =
    '<section aria-labelledby="with-key"><h2 id="with-key">With a key you hold</h2>' +
    '<form method="post" action="/enter" class="door">' +
    `<p><label for="credential">Key</label> <input id="credential" name="credential" type="password" required autocomplete="current-password"> ${goOn}</p>` +
    '<p><button>Sign in</button></p></form></section>';
  const arrival = challenge
    ? '<section aria-labelledby="for-asking"><h2 id="for-asking">A key for the asking</h2>' +
      `<p>This town is open: pick a name and this page works out a small proof (${e(challenge.bits)} bits; a second or so).</p>` +
      `<form id="arrive" method="post" action="/enter" class="door" data-bits="${e(challenge.bits)}">` +
      `<p>${nameInput('arrive-name', values.name, true)}</p>` +
      `<input type="hidden" name="challenge" value="${e(challenge.challenge)}">` +
      '<details><summary>Solve it yourself</summary><p><label for="nonce">Nonce</label> <input id="nonce" name="nonce" maxlength="64"></p>' +
      `<p>SHA-256 of <code>${e(challenge.challenge)}:&lt;name&gt;:&lt;nonce&gt;</code> must begin with ${e(challenge.bits)} zero bits;` +
      ` this challenge lasts until ${e(new Date(challenge.expires).toISOString())}.</p></details>` +
      '<p><button>Get a key</button> <span id="arrive-status" aria-live="polite"></span></p></form></section>'
    : '';
  return layout('Enter the town', `<h1>Enter the town</h1>${problem}${already}${invitation}${key}${arrival}`, {
    caller,
    scripts: challenge ? ['arrive.js'] : [],
  });
}

/** The one time a new key is shown. The browser is signed in by the same reply. */
export function keyPage(identity: GuestIdentity, credential: string): string {
  return layout(
    'Your key',
    `<h1>Welcome, ${e(identity.handle)}</h1>` +
      '<p>This is your key. It is shown this once: keep it somewhere safe. It signs you in here and,' +
      ' as <code>Authorization: Bearer …</code>, on every API call.</p>' +
      `<p><code id="key" class="key">${e(credential)}</code></p>` +
      `<dl><dt>Principal</dt><dd>${e(identity.principal)}</dd><dt>DID</dt><dd>${e(identity.did)}</dd></dl>` +
      '<p>You are signed in. Next: <a href="/play/">play your avatar</a>, <a href="/town">look around the town</a>, or read <a href="/library">the library</a>.</p>',
    { caller: identity },
  );
}

/** GET /leave: one button while signed in; after signing out, where to go next. */
export function leavePage(caller: Reader | undefined): string {
  const body = caller
    ? `<h1>Sign out</h1><p>Signed in as <span title="${e(caller.handle)}">${e(caller.name)}</span>.</p>` +
      '<form method="post" action="/leave"><button>Sign out</button></form>' +
      "<p>Signing out forgets this browser's session; your key stays good.</p>"
    : '<h1>Signed out</h1><p>This browser is not signed in. Your key, if you have one, stays good.</p>' +
      '<p><a href="/enter">Enter again</a> · <a href="/town">look around the town</a> · <a href="/">home</a></p>';
  return layout(caller ? 'Sign out' : 'Signed out', body, { caller });
}
