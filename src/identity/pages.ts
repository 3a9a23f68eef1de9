/**
 * The guest door's pages (spec 4.6): /enter with its forms, the page that shows a new key once,
 * and /leave. Every value written into a page goes through escape-html.
 */
import escapeHtml from 'escape-html';
import type { Challenge } from './challenge.js';
import type { GuestIdentity } from './names.js';
import { arrivalFormScript } from './proof-script.js';

function page(title: string, body: string, script = ''): string {
  return (
    '<!doctype html><html lang="en"><meta charset="utf-8">' +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<title>${escapeHtml(title)}</title><link rel="stylesheet" href="/static/town.css">` +
    `<main>${body}</main>${script ? `<script>${script}</script>` : ''}</html>`
  );
}

export interface EnterPageOptions {
  /** The challenge for the arrival form; only an open town has one. */
  challenge?: Challenge;
  /** A refusal to show above the forms, with what the guest had typed. */
  error?: { message: string; hint?: string };
  values?: { code?: string; name?: string };
  /** Where a signed-in browser goes next; kept only when it is a path of this town. */
  next?: unknown;
}

/** A path of this town to go on to after signing in; anything else (another site) is dropped. */
export function localPath(next: unknown): string | undefined {
  return typeof next === 'string' && /^\/(?![/\\])[^\s\\]*$/.test(next) && next.length <= 2048 ? next : undefined;
}

export function enterPage(options: EnterPageOptions = {}): string {
  const { challenge, error, values = {} } = options;
  const e = escapeHtml;
  const next = localPath(options.next);
  const goOn = next ? `<input type="hidden" name="next" value="${e(next)}">` : '';
  const problem = error ? `<p role="alert"><strong>${e(error.message)}</strong>${error.hint ? ` — ${e(error.hint)}` : ''}</p>` : '';
  const invitation =
    '<section><h2>With an invitation</h2>' +
    '<form method="post" action="/enter">' +
    `<label>Invitation code <input name="code" required autocomplete="off" value="${e(values.code ?? '')}"></label> ` +
    `<label>Name <input name="name" pattern="[a-z][a-z0-9-]{0,31}" maxlength="32" value="${e(values.name ?? '')}"></label> ` +
    '<button>Accept</button>' +
    '<p>Leave the name empty if your code already names you.</p></form></section>';
  const key =
    '<section><h2>With a key you hold</h2>' +
    '<form method="post" action="/enter">' +
    `<label>Key <input name="credential" type="password" required autocomplete="off"></label> ${goOn}` +
    '<button>Sign in</button></form></section>';
  const arrival = challenge
    ? '<section><h2>A key for the asking</h2>' +
      `<p>This town is open: pick a name and this page works out a small proof (${e(String(challenge.bits))} bits; a second or so).</p>` +
      `<form id="arrive" method="post" action="/enter" data-bits="${e(String(challenge.bits))}">` +
      `<label>Name <input name="name" required pattern="[a-z][a-z0-9-]{0,31}" maxlength="32" value="${e(values.name ?? '')}"></label> ` +
      `<input type="hidden" name="challenge" value="${e(challenge.challenge)}">` +
      '<details><summary>Solve it yourself</summary><label>Nonce <input name="nonce" maxlength="64"></label>' +
      `<p>SHA-256 of <code>${e(challenge.challenge)}:&lt;name&gt;:&lt;nonce&gt;</code> must begin with ${e(String(challenge.bits))} zero bits;` +
      ` this challenge lasts until ${e(new Date(challenge.expires).toISOString())}.</p></details>` +
      '<button>Get a key</button> <span id="arrive-status" aria-live="polite"></span></form></section>'
    : '';
  return page('Enter the town', `<h1>Enter the town</h1>${problem}${invitation}${key}${arrival}`, challenge ? arrivalFormScript : '');
}

/** The one time a new key is shown. */
export function keyPage(identity: GuestIdentity, credential: string): string {
  const e = escapeHtml;
  return page(
    'Your key',
    `<h1>Welcome, ${e(identity.handle)}</h1>` +
      '<p>This is your key. It is shown this once: keep it somewhere safe. It signs you in here and,' +
      ' as <code>Authorization: Bearer …</code>, on every API call.</p>' +
      `<p><code id="key">${e(credential)}</code></p>` +
      `<dl><dt>Principal</dt><dd>${e(identity.principal)}</dd><dt>DID</dt><dd>${e(identity.did)}</dd></dl>` +
      '<p>You are signed in. <a href="/play/">Play</a> · <a href="/">Home</a></p>',
  );
}

export function leavePage(signedInAs?: string): string {
  const who = signedInAs ? `<p>Signed in as ${escapeHtml(signedInAs)}.</p>` : '<p>You are not signed in.</p>';
  return page(
    'Sign out',
    `<h1>Sign out</h1>${who}` +
      '<form method="post" action="/leave"><button>Sign out</button></form>' +
      "<p>Signing out forgets this browser's session; your key stays good.</p>",
  );
}
