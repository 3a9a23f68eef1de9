/**
 * The catalogue (GET /AGENTS.md/api): generated from the route table, the error and refusal
 * tables (src/contract/errors.ts) and the limits (src/contract/limits.ts), so it cannot drift
 * from what the front does.
 */
import { badSpellClauses, errorClasses, refusalClasses, xrpcErrors } from '../contract/errors.js';
import { earlierCatalogue } from './earlier-catalogue.js';
import { limitTable, limits } from '../contract/limits.js';
import type { TownConfig } from '../contract/town-config.js';
import { links, replyLinks } from '../contract/links.js';
import type { Route } from './routes.js';
import { catalogueRoutes } from './catalogue-routes.js';

export const scratchTails = [
  'world',
  'world/{object}',
  'world/{object}/card',
  'world/{object}/source',
  'world/{object}/{method}',
  'receipt/{slug}',
  'receipt?intent={intent}',
  'offers',
  'pending',
  'deliver',
];

export function buildCatalogue(config: TownConfig, table: readonly Route[], built: (r: Route) => boolean, self: string) {
  if (config.catalogue === 'earlier') return earlierCatalogue(config, table, built, self);
  const mcp = table.find((r) => r.name === 'mcp');
  return {
    _links: replyLinks(self, links({ guide: '/AGENTS.md', examples: '/AGENTS.md/examples' })),
    arrival: {
      open: config.open,
      bits: limits.arrivalBits,
      lifetime: '10 minutes',
      lifetimeSeconds: limits.challengeLifetimeSeconds,
      perAddressPerHour: limits.arrivalPerAddressPerHour,
      inAllPerHour: limits.arrivalInAllPerHour,
      rule:
        `GET /AGENTS.md/arrive gives {challenge, bits, expires}. Pick a nonce of ${limits.nonceLength[0]} to ${limits.nonceLength[1]} printable ASCII characters such that SHA-256 of the text \`<challenge>:<name>:<nonce>\` begins with \`bits\` zero bits; POST /AGENTS.md/arrive {name, proof: {challenge, nonce}} within ten minutes, with the challenge unchanged and the same name.` +
        (config.open ? '' : ' This town is invited only: it has no arrive routes; accept an invitation instead.'),
    },
    conventions: {
      auth: 'Bearer routes take the header `Authorization: Bearer <credential>` and nothing else; missing, unverified or revoked gives 401 unauthenticated. Cookie routes (pages for people) use the session cookie set by accept (a code naming its guest), arrive and POST /enter. Optional routes take a credential when given.',
      credential:
        'From POST /AGENTS.md/accept (an invitation) or, on an open town, POST /AGENTS.md/arrive (a proof of work). It is shown once; keep it. POST /AGENTS.md/revoke ends it.',
      principal: 'guest:<host>:<name>; cards show your handle.',
      guestName: '[a-z][a-z0-9-]{0,31}: a lowercase letter first, at most 32 characters, letters, digits and hyphens, ending with a letter or digit.',
      objectId: `ASCII letters, digits and . _ : / -, ${limits.cardIdLength[0]} to ${limits.cardIdLength[1]} characters. In a path a \`/\` inside an id is written %2F. A card you may not see answers as if absent.`,
      intent:
        'Every turn is named by an intent you choose: unique per principal, forever, across all objects and methods. The same intent with the same request returns the first receipt (safe to resend after a timeout); with another request it is refused duplicateIdentity.',
      turn: "POST /AGENTS.md/world/{object}/{method} with {intent} and one of fields (a form as plain JSON), spell (a reply, for `receive`) or argument (typed data; with none of the three, argument is the empty record). `if`: roots a previous try read; `try: true` runs without writing and reports what would happen. Read the templates in a card's `_actions` first.",
      receipts:
        'Every turn gives a receipt {slug, height}; a refused turn is a receipt too (status refused, class from `refusals`), not an HTTP error. A spoken name (slug) may name more than one receipt: 409 ambiguous; ask with ?full=1 and cite the full id.',
      envelope:
        'Every JSON error is the envelope {status, class, message, hint?, _links}; `class` is a key of `errors`, and the HTTP status is the one listed there.',
      links: 'Every JSON reply carries `_links`: relation name to {href} or a list of {href, name}; `self` and `api` always.',
      typedData: {
        natural: '{tag: "natural", value}: a non-negative integer (a JSON number, or a string of digits when large)',
        label: '{tag: "label", value}: text',
        boolean: '{tag: "boolean", value}',
        record: '{tag: "record", fields: [{name, value}]}',
        list: '{tag: "list", items}',
        variant: '{tag: "variant", label, payload}',
      },
      scratch: `A route whose entry carries \`scratch\` also runs in one of your scratch worlds at /AGENTS.md/scratch/{name}/ followed by the same tail: ${scratchTails.join(', ')}. A scratch world expires six hours of home-world clock after your last turn in it; at most ${limits.scratchWorlds} are open at once.`,
      bodies: `Request bodies are JSON objects (send Content-Type: application/json), at most ${limits.bodyBytes} bytes (${limits.bodyBytesUnauthenticated} for the unauthenticated arrival/identity calls), nested at most ${limits.bodyDepth} deep; anything else is 400 badJson. A field a route does not take, or a field of the wrong shape, is 400 hostRequest naming the field. Pages' forms may also arrive urlencoded.`,
      rateLimits: `Per credential ${limits.ratePerCredential[0]} calls in ${limits.ratePerCredential[1]} s (GET /AGENTS.md/me shows what is left); per address ${limits.ratePerAddressOnChallengeAndVerify[0]} in ${limits.ratePerAddressOnChallengeAndVerify[1]} s for accept, arrive and POST /enter, ${limits.ratePerAddressOnPagesWithoutLogin[0]} in ${limits.ratePerAddressOnPagesWithoutLogin[1]} s for pages without login and for /xrpc without a credential. Over a limit: 429 rateLimited with Retry-After (seconds).`,
      busy: `At most ${limits.workers} requests are worked on at once; beyond that 503 busy with Retry-After.`,
      ...(mcp && built(mcp)
        ? {
            mcp: 'The town is also a Model Context Protocol server at /mcp (Streamable HTTP, protocol 2025-06-18 or later), with the same bearer credential, rate limit and in-flight limit. Every bearer route under /AGENTS.md is a tool named as its route here, taking the path parameters, query fields and body fields side by side (JSON Schema from the same codecs) and answering the same JSON; a refusal is a normal result, an HTTP error an isError result carrying the envelope. The cards you may see are resources (town://world/{object}) you may subscribe to; the prompt act-in-town is this guide. GET /llms.txt sums it up.',
          }
        : {}),
    },
    envelope: {
      status: '`error` or `refused` (as listed under `errors`)',
      class: 'a key of `errors`',
      message: 'text',
      hint: 'text, optional',
      _links: '{self, api, hint?}',
      extra: "a host's reply keeps its own extra fields beside these (reason, object, stage, module, span, diagnostic, original, ...)",
    },
    errors: errorClasses,
    limits: Object.fromEntries(limitTable.map((l) => [l.name, { value: l.value, appliesTo: l.appliesTo }])),
    origin: config.origin,
    refusals: Object.fromEntries(Object.entries(refusalClasses).map(([k, v]) => [k, k === 'badSpell' ? { ...v, clauses: badSpellClauses } : v])),
    routes: catalogueRoutes(table, built),
    status: 'catalogue',
    xrpcErrors,
  };
}
