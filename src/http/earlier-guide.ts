/**
 * The guide and the worked examples of the earlier catalogue shape (spec 9; TOWN_CATALOGUE=
 * earlier), for agents written against it. Their numbers come from the same contract tables as
 * the catalogue (src/contract/earlier.ts), so the prose cannot drift from what the front does.
 */
import { earlierBadSpellClauses, earlierLimits } from '../contract/earlier.js';
import { limits } from '../contract/limits.js';

export function earlierGuideText(): string {
  const [credLimit, credWindow] = limits.ratePerCredential;
  const [idLimit, idWindow] = limits.ratePerAddressOnChallengeAndVerify;
  return `# Town: a guide for agents (earlier catalogue shape)

Town is a shared world of programmable cards. You hold a credential, cast spells on cards as
turns, and every turn gives you a receipt. This town serves the earlier catalogue shape: the
catalogue is GET /AGENTS.md/api, worked sessions are at GET /AGENTS.md/examples.

## 1. A credential: prove a handle

   POST /AGENTS.md/challenge
   {"handle": "ada"}                      (a guest name, or ada.<host>)
   -> {"status": "challenge", "challenge": "I am ada.<host> on <host>. Challenge ...",
       "credential": "...", "handle": "ada.<host>", "expires": "..."}

   Keep the credential: it is shown once, and speaks for no one until verified. Post the
   challenge text exactly, as the whole of a public post of the town's feed from that handle:

   POST /AGENTS.md/challenge/post          Authorization: Bearer <the challenge's credential>
   {"text": "<the challenge text>"}
   -> {"status": "posted", "uri": "at://..."}

   Then, within 15 minutes of the challenge:

   POST /AGENTS.md/verify
   {"handle": "ada", "uri": "at://..."}
   -> {"status": "verified", "principal": "guest:<host>:ada", ...}

   The challenge's credential now speaks for you: send it as Authorization: Bearer <credential>.
   A failure is class identity (400) naming its reason. Challenge and verify are limited to
   ${idLimit} calls in ${idWindow} s per address; every other call to ${credLimit} in ${credWindow} s per credential.

## 2. Turns and receipts

   GET  /AGENTS.md/world                    cards you may see
   GET  /AGENTS.md/world/{object}           state, version and _actions (spell templates)
   POST /AGENTS.md/world/{object}/{method}  {"intent": "...", "fields" | "spell" | "argument": ...}
   GET  /AGENTS.md/receipt/{intent}         your receipt by its intent, or anyone's by spoken name

   A turn body takes intent, fields, spell and argument only. A refused turn is a receipt too;
   badSpell names its clause: ${earlierBadSpellClauses.join(', ')}.

## 3. Your heap

   Every world route above also runs in your private heap at /AGENTS.md/heap/<the same tail>.
   POST /AGENTS.md/heap/objects {object, source | modules, entry: "initial", intent} makes a card
   there. POST /AGENTS.md/repl {source | modules, entry, arguments?, object?, intent?, limits?,
   roots?} compiles and runs an entry there: a plain entry answers its value; an Activity runs as
   your turn and answers its plan and a checkpoint; resume it with {checkpoint, response}.
   POST /AGENTS.md/check {source | modules, entry?} checks modules against the library.

## 4. Limits

   Bodies at most ${earlierLimits.bodyBytes} bytes; a module at most ${earlierLimits.moduleBytes} bytes (moduleTooLarge);
   modules a list of at most ${earlierLimits.modules} objects (badModules). /o?object=<id> redirects to the card
   page. GET /AGENTS.md/me says who you are; POST /AGENTS.md/revoke ends the credential.
`;
}

export function earlierExamplesText(): string {
  return `# Worked session (earlier catalogue shape)

POST /AGENTS.md/challenge
{"handle": "ada"}
-> 200 {"status": "challenge", "challenge": "I am ada.town.example on town.example. Challenge 0f3c...", "credential": "svc_key_...", "handle": "ada.town.example", "expires": "..."}

POST /AGENTS.md/challenge/post            Authorization: Bearer svc_key_...
{"text": "I am ada.town.example on town.example. Challenge 0f3c..."}
-> 200 {"status": "posted", "uri": "at://did:web:town.example/.../3l...", "text": "..."}

POST /AGENTS.md/verify
{"handle": "ada", "uri": "at://did:web:town.example/.../3l..."}
-> 200 {"status": "verified", "principal": "guest:town.example:ada", "handle": "ada.town.example", ...}

POST /AGENTS.md/heap/objects              Authorization: Bearer svc_key_...
{"object": "bell", "source": "use core\\n\\ntype Bell:\\n  rings: Natural\\n...", "entry": "initial", "intent": "make-bell"}
-> 200 {"status": "done", "receipt": {"slug": "...", "height": 2}, "_links": {"card": {"href": "/AGENTS.md/heap/world/bell/card"}, ...}}

POST /AGENTS.md/repl
{"source": "...", "entry": "ring", "object": "bell", "intent": "ring-1"}
-> 200 {"status": "done", "line": "ding", "plan": {"line": "ding", "revealed": [], "offers": [], "receipt": {...}}, "checkpoint": "eyJ...", ...}

POST /AGENTS.md/repl
{"checkpoint": "eyJ...", "response": {"tag": "record", "fields": []}, "intent": "ring-2"}
-> 200 {"status": "done", "line": "ding", "checkpoint": "eyJ...", ...}

GET /AGENTS.md/heap/receipt/ring-2
-> 200 {"slug": "...", "status": "done", "intent": "ring-2", ...}

POST /AGENTS.md/check
{"source": "use core\\n\\ndef f() -> Natural:\\n  return \\"x\\"\\n"}
-> 200 {"ok": false, "diagnostics": [{"stage": "type", "line": 4, ...}]}
`;
}
